package dev.parquetlookup.tools;

import dev.parquetlookup.engine.RefreshOptions;
import dev.parquetlookup.engine.SnapshotSource;
import dev.parquetlookup.engine.SnapshotSource.Listing;
import dev.parquetlookup.engine.TableFormat;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveComparator;
import org.apache.parquet.schema.PrimitiveType;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * {@code inspect PATH}: the layout of Parquet files as it matters for point lookups, what one
 * lookup will read, and what to change.
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description = {
            "Report the layout of Parquet files for point lookups: files, rows, row groups, rows"
                    + " and bytes per page per column, dictionary and codec per column, page"
                    + " index, whether the sort order is declared and verified, the predicted"
                    + " bytes and reads of one lookup, and recommendations.",
            "",
            "Examples:",
            "  inspect /data/lookup/customers",
            "  inspect s3a://bucket/raw/orders.parquet --key order_id --columns status,total",
            ""
        })
final class InspectCommand implements Callable<Integer> {

    /** Pages above this many rows make every lookup decode much more than it returns. */
    static final int MAX_GOOD_PAGE_ROWS = 4_096;

    /** Dictionary pages above this size are a costly extra read per lookup. */
    static final long LARGE_DICTIONARY = 64 << 10;

    @Spec CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            description = "A Parquet file or a directory of them (local path or Hadoop URI).")
    String path;

    @Option(
            names = "--key",
            paramLabel = "COLUMN",
            description = "Sort key to verify when the files do not declare one (repeatable).")
    List<String> keys = new ArrayList<>();

    @Option(
            names = "--columns",
            paramLabel = "A,B",
            split = ",",
            description = "Columns a lookup returns, for the cost prediction (default: all).")
    List<String> columns = new ArrayList<>();

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description =
                    "What PATH is: files (default: a file or directory) or a table format such as"
                            + " iceberg (the table's root: the files of its current version).")
    String format = TableFormat.FILES;

    @Mixin HadoopOptionsMixin hadoop;

    /** What one file holds. */
    private record FileReport(
            FileId file,
            ParquetMetadata footer,
            List<String> declaredSortKey,
            String declaredWhere,
            List<List<ColumnIndex>> columnIndexes,
            List<List<OffsetIndex>> offsetIndexes,
            long metadataBytes) {}

    /** Per-column totals over all files. */
    private static final class ColumnStats {
        final String name;
        final String type;
        final Set<String> codecs = new TreeSet<>();
        final Set<String> encodings = new TreeSet<>();
        long chunks;
        long chunksWithDictionary;
        long dictionaryBytes;
        long chunksWithOffsetIndex;
        long chunksWithColumnIndex;
        long pages;
        long pageRowsMax;
        long pageBytesMax;
        long pageBytesTotal;
        long pageRowsTotal;
        long compressed;
        long uncompressed;

        ColumnStats(String name, String type) {
            this.name = name;
            this.type = type;
        }
    }

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        List<FileReport> reports = new ArrayList<>();
        try (FileStore store = HadoopFileStore.create(hadoop.options)) {
            List<FileId> files;
            try {
                if (TableFormat.FILES.equals(format)) {
                    files = store.list(path);
                } else {
                    Listing version =
                            SnapshotSource.forOptions(
                                            path,
                                            hadoop.options,
                                            RefreshOptions.defaults().withFormat(format),
                                            store)
                                    .list(null);
                    out.printf("Table %s, %s%n", path, version.versionLabel());
                    files = version.files();
                }
            } catch (FileNotFoundException e) {
                throw new ParameterException(
                        spec.commandLine(), "PATH " + path + " does not exist: check the path");
            }
            if (files.isEmpty()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "PATH " + path + " holds no files (hidden and '_' files are skipped)");
            }
            for (FileId file : files) {
                reports.add(read(store, file));
            }
        }
        report(out, reports);
        out.flush();
        return 0;
    }

    private FileReport read(FileStore store, FileId file) throws IOException {
        try (RangeSource source = store.open(file)) {
            FileMetaData thrift = rawFooter(source);
            try (ParquetFileReader reader =
                    ParquetFileReader.open(
                            new RangeSourceInputFile(source),
                            ParquetReadOptions.builder().build())) {
                ParquetMetadata footer = reader.getFooter();
                List<List<ColumnIndex>> cis = new ArrayList<>();
                List<List<OffsetIndex>> ois = new ArrayList<>();
                long metadataBytes = 8 + footerLength(source);
                for (BlockMetaData block : footer.getBlocks()) {
                    List<ColumnIndex> ci = new ArrayList<>();
                    List<OffsetIndex> oi = new ArrayList<>();
                    for (ColumnChunkMetaData chunk : block.getColumns()) {
                        ci.add(reader.readColumnIndex(chunk));
                        oi.add(reader.readOffsetIndex(chunk));
                        if (chunk.getColumnIndexReference() != null) {
                            metadataBytes += chunk.getColumnIndexReference().getLength();
                        }
                        if (chunk.getOffsetIndexReference() != null) {
                            metadataBytes += chunk.getOffsetIndexReference().getLength();
                        }
                    }
                    cis.add(ci);
                    ois.add(oi);
                }
                List<String> declared = new ArrayList<>();
                String where = declaredSortKey(thrift, footer, declared);
                return new FileReport(file, footer, declared, where, cis, ois, metadataBytes);
            }
        } catch (RuntimeException e) {
            throw new IOException(
                    "cannot read "
                            + file
                            + " as Parquet: "
                            + e.getMessage()
                            + ". Is it a complete Parquet file?",
                    e);
        }
    }

    private static int footerLength(RangeSource source) throws IOException {
        long length = source.file().length();
        byte[] tail = source.read(new FileRange(length - 8, 8));
        return ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static FileMetaData rawFooter(RangeSource source) throws IOException {
        long length = source.file().length();
        if (length < 12) {
            throw new IOException(
                    source.file() + " is " + length + " bytes: too short for a Parquet file");
        }
        byte[] tail = source.read(new FileRange(length - 8, 8));
        if (!new String(tail, 4, 4, StandardCharsets.US_ASCII).equals("PAR1")) {
            throw new IOException(
                    source.file()
                            + " does not end with PAR1: not a Parquet file, or a truncated one");
        }
        int footerLength = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (footerLength <= 0 || footerLength > length - 12) {
            throw new IOException(source.file() + " has a corrupt footer length " + footerLength);
        }
        byte[] footer = source.read(new FileRange(length - 8 - footerLength, footerLength));
        return Util.readFileMetaData(new ByteArrayInputStream(footer));
    }

    /** Fills {@code key} with the declared sort key and says where it was declared. */
    private static String declaredSortKey(
            FileMetaData thrift, ParquetMetadata footer, List<String> key) {
        List<String> fromSorting = new ArrayList<>();
        boolean descending = false;
        List<ColumnDescriptor> leaves = footer.getFileMetaData().getSchema().getColumns();
        if (thrift.isSetRow_groups() && !thrift.getRow_groups().isEmpty()) {
            RowGroup first = thrift.getRow_groups().get(0);
            if (first.isSetSorting_columns()) {
                for (SortingColumn c : first.getSorting_columns()) {
                    if (c.getColumn_idx() >= 0 && c.getColumn_idx() < leaves.size()) {
                        fromSorting.add(String.join(".", leaves.get(c.getColumn_idx()).getPath()));
                        descending |= c.isDescending();
                    }
                }
            }
        }
        String kv =
                footer.getFileMetaData()
                        .getKeyValueMetaData()
                        .get(LookupFileWriter.SORT_KEY_METADATA);
        List<String> fromKv =
                kv == null || kv.isBlank()
                        ? List.of()
                        : Arrays.stream(kv.split(",")).map(String::trim).toList();
        if (descending) {
            fromSorting.clear(); // lookups need ascending order
        }
        if (!fromSorting.isEmpty()) {
            key.addAll(fromSorting);
            return fromKv.equals(fromSorting)
                    ? "sorting_columns and " + LookupFileWriter.SORT_KEY_METADATA
                    : "sorting_columns";
        }
        if (!fromKv.isEmpty()) {
            key.addAll(fromKv);
            return LookupFileWriter.SORT_KEY_METADATA;
        }
        return descending ? "sorting_columns (descending: not usable)" : "";
    }

    // -------------------------------------------------------------------------------------------
    // The report

    private void report(PrintWriter out, List<FileReport> reports) {
        MessageType schema = reports.get(0).footer().getFileMetaData().getSchema();
        List<String> recommendations = new ArrayList<>();
        long rows = 0;
        long rowGroups = 0;
        long bytes = 0;
        long maxRowGroupRows = 0;
        for (FileReport r : reports) {
            for (BlockMetaData b : r.footer().getBlocks()) {
                rows += b.getRowCount();
                rowGroups++;
                maxRowGroupRows = Math.max(maxRowGroupRows, b.getRowCount());
            }
            bytes += r.file().length();
        }
        out.printf(
                Locale.ROOT,
                "%s: %d file(s), %s rows, %s row group(s), %s%n",
                path,
                reports.size(),
                Formats.count(rows),
                Formats.count(rowGroups),
                Formats.bytes(bytes));
        for (FileReport r : reports) {
            List<BlockMetaData> blocks = r.footer().getBlocks();
            long fileRows = blocks.stream().mapToLong(BlockMetaData::getRowCount).sum();
            out.printf(
                    Locale.ROOT,
                    "  %s: %s rows, %d row group(s)%s, %s, written by %s%n",
                    r.file().fileName(),
                    Formats.count(fileRows),
                    blocks.size(),
                    blocks.isEmpty()
                            ? ""
                            : " of up to "
                                    + Formats.count(
                                            blocks.stream()
                                                    .mapToLong(BlockMetaData::getRowCount)
                                                    .max()
                                                    .orElse(0))
                                    + " rows",
                    Formats.bytes(r.file().length()),
                    r.footer().getFileMetaData().getCreatedBy());
        }

        // Sort key: declared, or given.
        List<String> sortKey = reports.get(0).declaredSortKey();
        String where = reports.get(0).declaredWhere();
        boolean consistent = reports.stream().allMatch(r -> r.declaredSortKey().equals(sortKey));
        out.println();
        if (!consistent) {
            out.println("Sort key: the files declare different sort keys:");
            for (FileReport r : reports) {
                out.printf(
                        "  %s: %s%n",
                        r.file().fileName(),
                        r.declaredSortKey().isEmpty() ? "none" : r.declaredSortKey());
            }
            recommendations.add(
                    "The files declare different sort keys: rewrite them together with prepare.");
        } else if (!sortKey.isEmpty()) {
            out.printf("Sort key: (%s), declared in %s%n", String.join(", ", sortKey), where);
        } else {
            out.println(
                    "Sort key: not declared (no sorting_columns and no "
                            + LookupFileWriter.SORT_KEY_METADATA
                            + " entry)"
                            + (where.isEmpty() ? "" : "; found " + where));
        }
        List<String> checkKey = !keys.isEmpty() ? keys : consistent ? sortKey : List.of();
        if (!keys.isEmpty() && !sortKey.isEmpty() && !isPrefix(keys, sortKey) && consistent) {
            out.printf(
                    "  --key (%s) is not the declared sort key or a leading part of it%n",
                    String.join(", ", keys));
        }
        if (checkKey.isEmpty()) {
            if (consistent) {
                recommendations.add(
                        "The sort order is not declared: lookups need the 'sort-key' option."
                                + " Run prepare --key <column> to sort and declare it, or give"
                                + " inspect --key <column> to check the current order.");
            }
        } else {
            String lead = checkKey.get(0);
            if (schema.getFields().stream().noneMatch(f -> f.getName().equals(lead))) {
                throw new ParameterException(
                        spec.commandLine(),
                        "key column '"
                                + lead
                                + "' is not a column of "
                                + reports.get(0).file()
                                + "; its columns are "
                                + schema.getFields().stream().map(f -> f.getName()).toList());
            }
            String violation = verifySorted(reports, lead);
            if (violation == null) {
                out.printf(
                        "Sort order: verified from statistics: the minimums of row groups and"
                                + " pages of '%s' do not decrease%n",
                        lead);
            } else {
                out.printf("Sort order: NOT sorted by '%s': %s%n", lead, violation);
                recommendations.add(
                        "The files are not sorted by '"
                                + lead
                                + "': lookups would be wrong or refused. Run prepare --key "
                                + String.join(" --key ", checkKey)
                                + ".");
            }
            int overlaps = overlappingFiles(reports, lead);
            if (overlaps > 0) {
                out.printf(
                        "  %d pair(s) of files overlap in key range: a lookup there searches"
                                + " several files%n",
                        overlaps);
                recommendations.add(
                        overlaps
                                + " pair(s) of files overlap in key range, so some lookups read"
                                + " several files: run prepare to write files with disjoint"
                                + " ranges.");
            }
        }

        // Per column.
        Map<String, ColumnStats> stats = columnStats(reports, schema);
        out.println();
        out.println("Columns (over all files):");
        List<String[]> table = new ArrayList<>();
        table.add(
                new String[] {
                    "column",
                    "type",
                    "codec",
                    "dictionary",
                    "encodings",
                    "page index",
                    "pages",
                    "rows/page avg",
                    "max",
                    "bytes/page avg",
                    "max"
                });
        boolean allIndexed = true;
        boolean noneIndexed = true;
        for (ColumnStats c : stats.values()) {
            boolean indexed = c.chunksWithOffsetIndex == c.chunks && c.chunks > 0;
            allIndexed &= indexed;
            noneIndexed &= c.chunksWithOffsetIndex == 0;
            String dictionary =
                    c.chunksWithDictionary == 0
                            ? "no"
                            : (c.chunksWithDictionary == c.chunks
                                            ? "yes"
                                            : c.chunksWithDictionary + "/" + c.chunks + " chunks")
                                    + " ("
                                    + Formats.bytes(
                                            (double) c.dictionaryBytes / c.chunksWithDictionary)
                                    + ")";
            table.add(
                    new String[] {
                        c.name,
                        c.type,
                        String.join(",", c.codecs),
                        dictionary,
                        String.join(",", c.encodings),
                        indexed
                                ? "yes"
                                : c.chunksWithOffsetIndex == 0
                                        ? "no"
                                        : c.chunksWithOffsetIndex + "/" + c.chunks,
                        c.pages == 0 ? "?" : Formats.count(c.pages),
                        c.pages == 0
                                ? "?"
                                : Formats.count(Math.round((double) c.pageRowsTotal / c.pages)),
                        c.pages == 0 ? "?" : Formats.count(c.pageRowsMax),
                        c.pages == 0 ? "?" : Formats.bytes((double) c.pageBytesTotal / c.pages),
                        c.pages == 0 ? "?" : Formats.bytes(c.pageBytesMax)
                    });
        }
        printTable(out, table);
        out.println(
                "Page index: "
                        + (allIndexed
                                ? "present (ColumnIndex and OffsetIndex) in every column chunk"
                                : noneIndexed ? "absent" : "present in some column chunks only"));

        // Predicted cost of one lookup.
        List<String> projected = columns.isEmpty() ? new ArrayList<>(stats.keySet()) : columns;
        for (String c : projected) {
            if (!stats.containsKey(c)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--columns names '" + c + "', which is not a column: " + stats.keySet());
            }
        }
        String keyColumn = checkKey.isEmpty() ? null : checkKey.get(0);
        predictCost(out, stats, keyColumn, projected, reports);

        // Recommendations from the layout.
        for (ColumnStats c : stats.values()) {
            if (c.pages > 0 && c.pageRowsMax > MAX_GOOD_PAGE_ROWS) {
                recommendations.add(
                        "Pages of '"
                                + c.name
                                + "' hold up to "
                                + Formats.count(c.pageRowsMax)
                                + " rows: each lookup decodes up to that many values. Run prepare"
                                + " ("
                                + WriterOptions.DEFAULT_PAGE_ROWS
                                + " rows per page).");
                break;
            }
        }
        if (noneIndexed) {
            recommendations.add(
                    "No page index: lookups read whole column chunks (about "
                            + Formats.bytes(averageChunk(stats))
                            + " per column) instead of one page. Run prepare.");
        } else if (!allIndexed) {
            recommendations.add(
                    "Some column chunks have no page index: lookups there read whole chunks. Run"
                            + " prepare.");
        }
        List<String> slowCodec = new ArrayList<>();
        for (ColumnStats c : stats.values()) {
            if (c.chunksWithDictionary > 0
                    && c.dictionaryBytes / c.chunksWithDictionary > LARGE_DICTIONARY) {
                recommendations.add(
                        "Column '"
                                + c.name
                                + "' is dictionary encoded with "
                                + Formats.bytes((double) c.dictionaryBytes / c.chunksWithDictionary)
                                + " dictionary pages, read with every lookup that returns it."
                                + " Run prepare (dictionary off).");
            }
            if (c.codecs.contains("GZIP") || c.codecs.contains("BROTLI")) {
                slowCodec.add(c.name);
            }
        }
        if (!slowCodec.isEmpty()) {
            recommendations.add(
                    "Column(s) "
                            + String.join(", ", slowCodec)
                            + " are compressed with GZIP or BROTLI, slow to decompress per"
                            + " lookup: run prepare --codec LZ4_RAW (or ZSTD for size).");
        }
        if (keyColumn != null && stats.containsKey(keyColumn)) {
            ColumnStats k = stats.get(keyColumn);
            if (k.chunksWithColumnIndex < k.chunks && k.chunksWithOffsetIndex == k.chunks) {
                recommendations.add(
                        "Key column '"
                                + keyColumn
                                + "' has no ColumnIndex (page min/max) in some row groups: the"
                                + " key page cannot be found directly. Run prepare.");
            }
            List<String> keyCodecs =
                    k.codecs.stream().filter(codec -> !codec.equals("UNCOMPRESSED")).toList();
            if (!keyCodecs.isEmpty()) {
                recommendations.add(
                        "Key column '"
                                + keyColumn
                                + "' is compressed ("
                                + String.join(",", keyCodecs)
                                + "): every lookup decompresses a key page, which for sorted keys"
                                + " saves little space (about 2:1) and costs as much as the value"
                                + " page's decompression. prepare leaves key columns uncompressed.");
            }
        }
        if (maxRowGroupRows > 4L * 1024 * 1024) {
            recommendations.add(
                    "Row groups hold up to "
                            + Formats.count(maxRowGroupRows)
                            + " rows; about 131,072 keep the footer small and statistics useful."
                            + " Run prepare.");
        }
        out.println();
        if (recommendations.isEmpty()) {
            out.println("Recommendations: none, the layout suits point lookups.");
        } else {
            out.println("Recommendations:");
            for (String r : new LinkedHashSet<>(recommendations)) {
                out.println("  - " + r);
            }
        }
    }

    private static boolean isPrefix(List<String> prefix, List<String> of) {
        return prefix.size() <= of.size() && of.subList(0, prefix.size()).equals(prefix);
    }

    private static double averageChunk(Map<String, ColumnStats> stats) {
        long chunks = 0;
        long bytes = 0;
        for (ColumnStats c : stats.values()) {
            chunks += c.chunks;
            bytes += c.compressed;
        }
        return chunks == 0 ? 0 : (double) bytes / chunks;
    }

    private static Map<String, ColumnStats> columnStats(
            List<FileReport> reports, MessageType schema) {
        Map<String, ColumnStats> stats = new LinkedHashMap<>();
        for (ColumnDescriptor leaf : schema.getColumns()) {
            String name = String.join(".", leaf.getPath());
            stats.put(
                    name,
                    new ColumnStats(
                            name,
                            leaf.getPrimitiveType().toString().trim().replaceAll("\\s+", " ")));
        }
        for (FileReport r : reports) {
            List<BlockMetaData> blocks = r.footer().getBlocks();
            for (int b = 0; b < blocks.size(); b++) {
                BlockMetaData block = blocks.get(b);
                List<ColumnChunkMetaData> chunks = block.getColumns();
                for (int c = 0; c < chunks.size(); c++) {
                    ColumnChunkMetaData chunk = chunks.get(c);
                    ColumnStats s = stats.get(chunk.getPath().toDotString());
                    if (s == null) {
                        continue; // a column the first file does not have
                    }
                    s.chunks++;
                    s.codecs.add(chunk.getCodec().name());
                    for (Encoding e : chunk.getEncodings()) {
                        s.encodings.add(e.name());
                    }
                    s.compressed += chunk.getTotalSize();
                    s.uncompressed += chunk.getTotalUncompressedSize();
                    if (chunk.hasDictionaryPage()) {
                        s.chunksWithDictionary++;
                        long dict =
                                chunk.getFirstDataPageOffset() - chunk.getDictionaryPageOffset();
                        if (dict > 0) {
                            s.dictionaryBytes += dict;
                        }
                    }
                    if (r.columnIndexes().get(b).get(c) != null) {
                        s.chunksWithColumnIndex++;
                    }
                    OffsetIndex oi = r.offsetIndexes().get(b).get(c);
                    if (oi != null) {
                        s.chunksWithOffsetIndex++;
                        for (int p = 0; p < oi.getPageCount(); p++) {
                            long end =
                                    p + 1 < oi.getPageCount()
                                            ? oi.getFirstRowIndex(p + 1)
                                            : block.getRowCount();
                            long pageRows = end - oi.getFirstRowIndex(p);
                            s.pages++;
                            s.pageRowsTotal += pageRows;
                            s.pageRowsMax = Math.max(s.pageRowsMax, pageRows);
                            s.pageBytesTotal += oi.getCompressedPageSize(p);
                            s.pageBytesMax = Math.max(s.pageBytesMax, oi.getCompressedPageSize(p));
                        }
                    }
                }
            }
        }
        return stats;
    }

    private static void predictCost(
            PrintWriter out,
            Map<String, ColumnStats> stats,
            String keyColumn,
            List<String> projected,
            List<FileReport> reports) {
        out.println();
        String keyName = keyColumn != null && stats.containsKey(keyColumn) ? keyColumn : null;
        List<String> read = new ArrayList<>();
        if (keyName != null) {
            read.add(keyName);
        }
        for (String c : projected) {
            if (!c.equals(keyName)) {
                read.add(c);
            }
        }
        long reads = 0;
        double bytes = 0;
        List<String> parts = new ArrayList<>();
        for (String name : read) {
            ColumnStats c = stats.get(name);
            boolean indexed = c.chunks > 0 && c.chunksWithOffsetIndex == c.chunks && c.pages > 0;
            double part =
                    indexed
                            ? (double) c.pageBytesTotal / c.pages
                            : c.chunks == 0 ? 0 : (double) c.compressed / c.chunks;
            if (c.chunksWithDictionary > 0) {
                part += (double) c.dictionaryBytes / c.chunksWithDictionary;
                reads++;
            }
            reads++;
            bytes += part;
            parts.add(
                    name
                            + (name.equals(keyName) ? " (key) " : " ")
                            + Formats.bytes(part)
                            + (indexed ? " page" : " chunk")
                            + (c.chunksWithDictionary > 0 ? " + dictionary" : ""));
        }
        long metadata = reports.stream().mapToLong(FileReport::metadataBytes).sum();
        out.printf(
                Locale.ROOT,
                "One lookup (returning %s; metadata cached): about %s in %d read(s)%n",
                projected.size() == stats.size() ? "all columns" : String.join(", ", projected),
                Formats.bytes(bytes),
                reads);
        out.println("  " + String.join(" + ", parts));
        if (keyName == null) {
            out.println("  (without a sort key the key page cannot be located: a guess)");
        }
        out.printf(
                Locale.ROOT,
                "  Metadata read once per file and cached: %s in total (footers and page"
                        + " indexes)%n",
                Formats.bytes(metadata));
    }

    // -------------------------------------------------------------------------------------------
    // Sortedness from statistics

    /** Null when sorted, else where the order breaks. */
    private static String verifySorted(List<FileReport> reports, String column) {
        for (FileReport r : reports) {
            List<BlockMetaData> blocks = r.footer().getBlocks();
            Object previousMax = null;
            int previousGroup = -1;
            for (int b = 0; b < blocks.size(); b++) {
                ColumnChunkMetaData chunk = chunk(blocks.get(b), column);
                if (chunk == null) {
                    return "file " + r.file().fileName() + " has no column '" + column + "'";
                }
                Statistics<?> st = chunk.getStatistics();
                if (blocks.get(b).getRowCount() == 0 || st == null || st.isEmpty()) {
                    continue;
                }
                if (!st.hasNonNullValue()) {
                    if (st.getNumNulls() == blocks.get(b).getRowCount()) {
                        continue; // only nulls
                    }
                    return "row group "
                            + b
                            + " of "
                            + r.file().fileName()
                            + " has no min/max statistics for '"
                            + column
                            + "', so the order cannot be verified";
                }
                @SuppressWarnings("unchecked")
                PrimitiveComparator<Object> cmp =
                        (PrimitiveComparator<Object>) chunk.getPrimitiveType().comparator();
                Object min = st.genericGetMin();
                if (previousMax != null && cmp.compare(min, previousMax) < 0) {
                    return "in "
                            + r.file().fileName()
                            + ", row group "
                            + previousGroup
                            + " holds keys up to "
                            + show(chunk.getPrimitiveType(), previousMax)
                            + " but row group "
                            + b
                            + " starts at "
                            + show(chunk.getPrimitiveType(), min);
                }
                previousMax = st.genericGetMax();
                previousGroup = b;
                int c = blocks.get(b).getColumns().indexOf(chunk);
                ColumnIndex ci = r.columnIndexes().get(b).get(c);
                if (ci != null) {
                    String pages = verifyPages(ci, chunk.getPrimitiveType(), cmp);
                    if (pages != null) {
                        return "in " + r.file().fileName() + ", row group " + b + ", " + pages;
                    }
                }
            }
        }
        return null;
    }

    private static String verifyPages(
            ColumnIndex ci, PrimitiveType type, PrimitiveComparator<Object> cmp) {
        List<ByteBuffer> mins = ci.getMinValues();
        List<ByteBuffer> maxs = ci.getMaxValues();
        List<Boolean> nullPages = ci.getNullPages();
        Object previousMax = null;
        int previousPage = -1;
        for (int p = 0; p < mins.size(); p++) {
            if (nullPages.get(p)) {
                continue;
            }
            Object min = decode(type, mins.get(p));
            Object max = decode(type, maxs.get(p));
            if (min == null || max == null) {
                return null; // a type whose order inspect does not decode
            }
            if (previousMax != null && cmp.compare(min, previousMax) < 0) {
                return "page "
                        + previousPage
                        + " holds keys up to "
                        + show(type, previousMax)
                        + " but page "
                        + p
                        + " starts at "
                        + show(type, min);
            }
            previousMax = max;
            previousPage = p;
        }
        return null;
    }

    private static Object decode(PrimitiveType type, ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return switch (type.getPrimitiveTypeName()) {
            case INT32 -> b.getInt(b.position());
            case INT64 -> b.getLong(b.position());
            case FLOAT -> b.getFloat(b.position());
            case DOUBLE -> b.getDouble(b.position());
            case BOOLEAN -> b.get(b.position()) != 0;
            case BINARY, FIXED_LEN_BYTE_ARRAY -> Binary.fromConstantByteBuffer(b);
            default -> null;
        };
    }

    private static String show(PrimitiveType type, Object value) {
        if (value instanceof Binary b) {
            return type.stringifier().stringify(b);
        }
        return switch (type.getPrimitiveTypeName()) {
            case INT32 -> type.stringifier().stringify((Integer) value);
            case INT64 -> type.stringifier().stringify((Long) value);
            default -> String.valueOf(value);
        };
    }

    private static ColumnChunkMetaData chunk(BlockMetaData block, String column) {
        for (ColumnChunkMetaData c : block.getColumns()) {
            if (c.getPath().toDotString().equals(column)) {
                return c;
            }
        }
        return null;
    }

    private static int overlappingFiles(List<FileReport> reports, String column) {
        record Range(Object min, Object max, PrimitiveComparator<Object> cmp) {}
        List<Range> ranges = new ArrayList<>();
        for (FileReport r : reports) {
            Object min = null;
            Object max = null;
            PrimitiveComparator<Object> cmp = null;
            for (BlockMetaData b : r.footer().getBlocks()) {
                ColumnChunkMetaData chunk = chunk(b, column);
                if (chunk == null
                        || chunk.getStatistics() == null
                        || !chunk.getStatistics().hasNonNullValue()) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                PrimitiveComparator<Object> c =
                        (PrimitiveComparator<Object>) chunk.getPrimitiveType().comparator();
                cmp = c;
                Object lo = chunk.getStatistics().genericGetMin();
                Object hi = chunk.getStatistics().genericGetMax();
                min = min == null || c.compare(lo, min) < 0 ? lo : min;
                max = max == null || c.compare(hi, max) > 0 ? hi : max;
            }
            if (min != null) {
                ranges.add(new Range(min, max, cmp));
            }
        }
        int overlaps = 0;
        for (int i = 0; i < ranges.size(); i++) {
            for (int j = i + 1; j < ranges.size(); j++) {
                Range a = ranges.get(i);
                Range b = ranges.get(j);
                // Touching at one equal key is allowed (a run of duplicates split over files).
                if (a.cmp().compare(a.min(), b.max()) < 0
                        && a.cmp().compare(b.min(), a.max()) < 0) {
                    overlaps++;
                }
            }
        }
        return overlaps;
    }

    private static void printTable(PrintWriter out, List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder(" ");
            for (int i = 0; i < row.length; i++) {
                sb.append(' ').append(row[i]);
                sb.append(" ".repeat(widths[i] - row[i].length()));
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
