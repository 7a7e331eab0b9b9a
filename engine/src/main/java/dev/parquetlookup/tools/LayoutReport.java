package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.TableSchema;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.tools.FileLayout.ChunkLayout;
import dev.parquetlookup.tools.FileLayout.RowGroupLayout;
import dev.parquetlookup.tools.FileLayout.SortVerdict;

import org.apache.parquet.column.ColumnDescriptor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The report model of {@code inspect}: totals over all files, the sort key and the engine's
 * verdicts, the columns on which files disagree (the engine's {@link TableSchema} check),
 * per-column page statistics, and key-range overlaps between files. Printing is {@link
 * LayoutPrinter}'s job, the cost of one lookup {@link LookupCost}'s.
 */
final class LayoutReport {

    /** Per-column totals over all files. */
    static final class ColumnStats {
        final String name;
        final Set<String> types = new TreeSet<>();
        final Set<String> codecs = new TreeSet<>();
        long chunks;
        long chunksWithDictionary;
        long dictionaryBytes;
        long chunksWithOffsetIndex;
        long pages;
        long pageRowsMax;
        long pageBytesMax;
        long pageBytesTotal;
        long pageRowsTotal;
        long compressed;

        ColumnStats(String name) {
            this.name = name;
        }

        boolean indexed() {
            return chunks > 0 && chunksWithOffsetIndex == chunks;
        }

        double averageDictionaryBytes() {
            return chunksWithDictionary == 0 ? 0 : (double) dictionaryBytes / chunksWithDictionary;
        }
    }

    final String path;
    final List<FileLayout> files;

    /** Where the files' paths part: a file's label is its path below this (its name for one). */
    private final int labelStart;

    final List<TableSchema.Difference> schemaDifferences;
    final Map<String, ColumnStats> columns;

    /** The sort key all files resolve to, or null when they disagree; empty when none. */
    final List<String> sortKey;

    final long rows;
    final long rowGroups;
    final long bytes;
    final long maxRowGroupRows;
    final long metadataBytes;

    LayoutReport(String path, List<FileLayout> files) {
        this.path = path;
        this.files = List.copyOf(files);
        this.labelStart = commonDirectoryLength(this.files);
        this.rows = files.stream().mapToLong(FileLayout::rows).sum();
        this.rowGroups = files.stream().mapToLong(f -> f.rowGroups().size()).sum();
        this.bytes = files.stream().mapToLong(f -> f.file().length()).sum();
        this.maxRowGroupRows =
                files.stream().mapToLong(FileLayout::maxRowGroupRows).max().orElse(0);
        this.metadataBytes = files.stream().mapToLong(FileLayout::metadataBytes).sum();
        List<String> key = files.get(0).sortKey();
        this.sortKey = files.stream().allMatch(f -> f.sortKey().equals(key)) ? key : null;
        this.schemaDifferences =
                TableSchema.differences(
                        files.stream().map(FileLayout::file).toList(),
                        files.stream().map(FileLayout::schema).toList(),
                        sortKey == null ? List.of() : sortKey);
        this.columns = columnStats(files);
    }

    /** Whether every file declares (or was given) the same sort key. */
    boolean sortKeysAgree() {
        return sortKey != null;
    }

    List<FileLayout> withStatus(SortVerdict.Status status) {
        return files.stream().filter(f -> f.verdict().status() == status).toList();
    }

    /** The engine accepted every file as sorted by the sort key. */
    boolean sorted() {
        return withStatus(SortVerdict.Status.SORTED).size() == files.size();
    }

    boolean anyNotSorted() {
        return !withStatus(SortVerdict.Status.NOT_SORTED).isEmpty();
    }

    boolean allPageIndexed() {
        return columns.values().stream().allMatch(ColumnStats::indexed);
    }

    boolean noPageIndex() {
        return columns.values().stream().allMatch(c -> c.chunksWithOffsetIndex == 0);
    }

    /** Row groups without a ColumnIndex for the leading key, among files the engine accepted. */
    long rowGroupsWithoutKeyIndex() {
        long n = 0;
        for (FileLayout f : withStatus(SortVerdict.Status.SORTED)) {
            for (RowGroupLayout rg : f.rowGroups()) {
                n += rg.leadKeyColumnIndex() || rg.rows() == 0 ? 0 : 1;
            }
        }
        return n;
    }

    /**
     * Pairs of files whose leading-key ranges overlap by more than one key (a run of equal keys
     * split over two files is fine). Lookups there read both files and return the rows of both.
     */
    int overlappingFilePairs() {
        record Range(KeyRanges keys, Object min, Object max) {}
        List<Range> ranges = new ArrayList<>();
        for (FileLayout f : files) {
            KeyRanges k = f.leadKeyBounds();
            if (k == null || k.size() == 0) {
                continue;
            }
            Object min = k.min(0);
            Object max = k.max(0);
            for (int i = 1; i < k.size(); i++) {
                min = k.type().compare(k.min(i), min) < 0 ? k.min(i) : min;
                max = k.type().compare(k.max(i), max) > 0 ? k.max(i) : max;
            }
            ranges.add(new Range(k, min, max));
        }
        int overlaps = 0;
        for (int i = 0; i < ranges.size(); i++) {
            for (int j = i + 1; j < ranges.size(); j++) {
                Range a = ranges.get(i);
                Range b = ranges.get(j);
                if (a.keys().type().kind() != b.keys().type().kind()) {
                    continue; // a schema difference, reported as such
                }
                var type = a.keys().type();
                if (type.compare(a.min(), b.max()) < 0 && type.compare(b.min(), a.max()) < 0) {
                    overlaps++;
                }
            }
        }
        return overlaps;
    }

    /**
     * A file as the report names it: its path below the files' common directory, so that files of
     * one name in different directories ({@code region=eu/data_0.parquet}) stay apart.
     */
    String label(FileLayout file) {
        String p = file.file().path();
        return labelStart <= p.length() ? p.substring(labelStart) : file.file().fileName();
    }

    /**
     * The names of Hive-style partition directories ({@code key=value}) the files sit in, in order
     * of appearance: such directories' values are not columns of plain files.
     */
    List<String> partitionDirectoryKeys() {
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        for (FileLayout f : files) {
            String[] parts = label(f).split("/");
            for (int i = 0; i < parts.length - 1; i++) {
                int eq = parts[i].indexOf('=');
                if (eq > 0) {
                    keys.add(parts[i].substring(0, eq));
                }
            }
        }
        return List.copyOf(keys);
    }

    private static int commonDirectoryLength(List<FileLayout> files) {
        if (files.isEmpty()) {
            return 0;
        }
        String first = files.get(0).file().path();
        int end = first.lastIndexOf('/') + 1;
        for (FileLayout f : files) {
            String p = f.file().path();
            int n = Math.min(end, p.length());
            int i = 0;
            while (i < n && p.charAt(i) == first.charAt(i)) {
                i++;
            }
            end = first.lastIndexOf('/', i - 1) + 1;
        }
        return end;
    }

    /**
     * A column's type as the schema prints it, e.g. {@code optional double price}, without
     * parquet-java's {@code columnorder(TYPE_DEFINED_ORDER)}, the default every writer sets.
     */
    static String typeText(String parquetJavaType) {
        return parquetJavaType
                .replaceAll("\\s*columnorder\\(TYPE_DEFINED_ORDER\\)", "")
                .trim()
                .replaceAll("\\s+", " ");
    }

    private static Map<String, ColumnStats> columnStats(List<FileLayout> files) {
        Map<String, ColumnStats> stats = new LinkedHashMap<>();
        for (FileLayout f : files) {
            for (ColumnDescriptor leaf : f.schema().getColumns()) {
                String name = String.join(".", leaf.getPath());
                stats.computeIfAbsent(name, ColumnStats::new)
                        .types
                        .add(typeText(leaf.getPrimitiveType().toString()));
            }
        }
        for (FileLayout f : files) {
            for (RowGroupLayout rg : f.rowGroups()) {
                for (ChunkLayout chunk : rg.chunks()) {
                    ColumnStats s = stats.get(chunk.column());
                    s.chunks++;
                    s.codecs.add(chunk.codec());
                    s.compressed += chunk.bytes();
                    if (chunk.dictionary()) {
                        s.chunksWithDictionary++;
                        s.dictionaryBytes += chunk.dictionaryBytes();
                    }
                    PageLocations pages = chunk.pages();
                    if (pages != null) {
                        s.chunksWithOffsetIndex++;
                        for (int p = 0; p < pages.pageCount(); p++) {
                            long pageRows = pages.endRow(p, rg.rows()) - pages.firstRows()[p];
                            s.pages++;
                            s.pageRowsTotal += pageRows;
                            s.pageRowsMax = Math.max(s.pageRowsMax, pageRows);
                            s.pageBytesTotal += pages.sizes()[p];
                            s.pageBytesMax = Math.max(s.pageBytesMax, pages.sizes()[p]);
                        }
                    }
                }
            }
        }
        return stats;
    }

    /** The sort key as {@code prepare}'s flags' values: {@code a --key b}. */
    String sortKeyFlags() {
        return sortKey == null ? "" : String.join(" --key ", sortKey);
    }
}
