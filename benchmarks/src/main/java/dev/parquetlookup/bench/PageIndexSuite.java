package dev.parquetlookup.bench;

import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

import org.jfree.data.category.DefaultCategoryDataset;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code pageindex} suite: the seed's page-index range-read study. The query {@code f =
 * 'match'} projecting the 16 payload columns runs on each layout's indexed and unindexed file,
 * through parquet-java's column-index filtering over our {@code RangeSource} (Hadoop raw local file
 * system), counting bytes, range requests and whole-chunk reads with {@code CountingRangeSource}.
 * Each query opens the file afresh (footer included), like the seed's scans.
 *
 * <p>The reader is parquet-java's, not our engine: the engine answers lookups on the sort key, and
 * a filter on a non-sort column whose matches are scattered over every page is not a lookup.
 *
 * <p>The suite ends with {@link S3LookupCase}: the engine's range reads on object storage (GETs,
 * HEADs and bytes per lookup and per file opened, latency against a local file).
 */
final class PageIndexSuite {

    static final String SUITE = "pageindex";
    static final String SYSTEM = "parquet-java-columnindex";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    PageIndexSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    /** One query's figures. */
    private record Query(
            long nanos,
            long firstRowNanos,
            long bytes,
            long requests,
            long dataBytes,
            long dataRequests,
            long fullChunkReads,
            int rows,
            long fingerprint) {}

    void run() throws Exception {
        int width = options.rows() >= 1_000_000 ? 432 : 48;
        int reps = options.quick() ? options.repetitions() : Math.max(5, options.repetitions());
        Path dir = report.out().resolve("data");
        Path[] localized = PageIndexFixture.files(dir, true, width);
        Path[] scattered = PageIndexFixture.files(dir, false, width);
        report.conditions(
                SUITE,
                String.format(
                        Locale.ROOT,
                        "fixture=2x4096_rows/128-row_pages/16_nullable_string_payloads/%dB_values/"
                                + "dict-off/UNCOMPRESSED bytes_indexed=%d bytes_unindexed=%d"
                                + " reader=parquet-java-1.18.1_column-index_filter_over_RangeSource"
                                + "(RawLocalFileSystem,64KiB_read-ahead_for_small_reads) threads=1"
                                + " os_cache=warm reps=%d",
                        width,
                        Files.size(localized[0]),
                        Files.size(localized[1]),
                        reps));
        Map<String, Path> cases = new LinkedHashMap<>();
        cases.put("localized-indexed", localized[0]);
        cases.put("localized-unindexed", localized[1]);
        cases.put("scattered-indexed", scattered[0]);
        cases.put("scattered-unindexed", scattered[1]);
        Map<String, List<Query>> results = measure(cases, reps);
        checkFingerprints(results);
        for (Map.Entry<String, List<Query>> e : results.entrySet()) {
            emit(e.getKey(), e.getValue());
        }
        ratios();
        chart();
        new S3LookupCase(options, report, log).run();
    }

    /** Every case {@code reps} times, alternating the order; a first unrecorded query each. */
    private Map<String, List<Query>> measure(Map<String, Path> cases, int reps) throws Exception {
        Map<String, List<Query>> results = new LinkedHashMap<>();
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            // Warm-up: one query per case (JIT, OS cache), not recorded.
            for (Path file : cases.values()) {
                query(store, file);
            }
            for (int rep = 0; rep < reps; rep++) {
                List<String> order = new ArrayList<>(cases.keySet());
                if (rep % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String name : order) {
                    results.computeIfAbsent(name, n -> new ArrayList<>())
                            .add(query(store, cases.get(name)));
                }
            }
        }
        return results;
    }

    /** Every query of a layout returned the indexed file's rows, or the suite fails. */
    private void checkFingerprints(Map<String, List<Query>> results) {
        for (String layout : List.of("localized", "scattered")) {
            Query indexed = results.get(layout + "-indexed").get(0);
            for (String name : List.of(layout + "-indexed", layout + "-unindexed")) {
                for (Query q : results.get(name)) {
                    if (q.rows() != PageIndexFixture.MATCHES
                            || q.fingerprint() != indexed.fingerprint()) {
                        throw new IllegalStateException(
                                String.format(
                                        "fingerprint mismatch in suite=pageindex case=%s: %d rows %s,"
                                                + " expected %d rows %s (the indexed file's result)",
                                        name,
                                        q.rows(),
                                        Fingerprint.hex(q.fingerprint()),
                                        PageIndexFixture.MATCHES,
                                        Fingerprint.hex(indexed.fingerprint())));
                    }
                }
            }
            report.note(
                    String.format(
                            "fingerprint suite=pageindex case=%s rows=%d %s agree=indexed,unindexed",
                            layout, indexed.rows(), Fingerprint.hex(indexed.fingerprint())));
        }
    }

    private void ratios() {
        for (String layout : List.of("localized", "scattered")) {
            ResultRow idx = report.find(SUITE, SYSTEM, layout + "-indexed", 1);
            ResultRow noidx = report.find(SUITE, SYSTEM, layout + "-unindexed", 1);
            report.ratioLine(
                    SUITE,
                    layout,
                    1,
                    "bytes_saved_by_offset_index",
                    1.0 - idx.bytesPerOp() / noidx.bytesPerOp());
            report.ratioLine(
                    SUITE,
                    layout,
                    1,
                    "indexed/unindexed_speed",
                    idx.opsPerSec() / noidx.opsPerSec());
            report.ratioLine(
                    SUITE,
                    layout,
                    1,
                    "indexed/unindexed_requests",
                    idx.readsPerOp() / noidx.readsPerOp());
        }
    }

    private void chart() throws Exception {
        DefaultCategoryDataset bytes = new DefaultCategoryDataset();
        for (ResultRow row : report.rows(SUITE)) {
            if (!row.system().equals(SYSTEM)) {
                continue;
            }
            String[] parts = row.caseName().split("-");
            bytes.addValue(row.bytesPerOp() / (1024.0 * 1024.0), parts[1], parts[0]);
        }
        Charts.bars(
                report.out().resolve("pageindex-bytes.png"),
                "Page-index range reads: MiB read per query (f = 'match', 16 payload columns)",
                "MiB",
                bytes,
                false);
    }

    private void emit(String name, List<Query> list) {
        List<Query> sorted = new ArrayList<>(list);
        sorted.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
        Query median = sorted.get(sorted.size() / 2);
        long[] firstRows = list.stream().mapToLong(Query::firstRowNanos).sorted().toArray();
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("total_ms", ms(median.nanos()));
        extra.put("first_row_ms", ms(firstRows[firstRows.length / 2]));
        extra.put("range_requests", Long.toString(median.requests()));
        extra.put("data_requests", Long.toString(median.dataRequests()));
        extra.put("data_bytes", Long.toString(median.dataBytes()));
        extra.put("full_chunk_reads", Long.toString(median.fullChunkReads()));
        extra.put("rows", Integer.toString(median.rows()));
        extra.put("fingerprint", Fingerprint.hex(median.fingerprint()));
        report.result(
                new ResultRow(
                        SUITE,
                        SYSTEM,
                        name,
                        1,
                        1e9 / median.nanos(),
                        median.nanos() / 1e3,
                        sorted.get(sorted.size() - 1).nanos() / 1e3,
                        (double) median.bytes(),
                        (double) median.requests(),
                        null,
                        1e9 / sorted.get(sorted.size() - 1).nanos(),
                        1e9 / sorted.get(0).nanos(),
                        list.size(),
                        extra));
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    /** Opens the file afresh and runs the query, counting every read. */
    private Query query(HadoopFileStore store, Path path) throws Exception {
        long[][] chunks = chunkRanges(path);
        FileId id = store.stat(path.toAbsolutePath().toString());
        ReadStatistics stats = new ReadStatistics();
        try (RangeSource raw = store.open(id)) {
            RegionTrackingSource regions = new RegionTrackingSource(raw, chunks[0], chunks[1]);
            RangeSource counting = new CountingRangeSource(regions, stats);
            RangeSourceInputFile input = new RangeSourceInputFile(counting, 64 * 1024);
            FilterCompat.Filter filter =
                    FilterCompat.get(
                            FilterApi.eq(
                                    FilterApi.binaryColumn("f"),
                                    Binary.fromString(PageIndexFixture.MATCH)));
            ParquetReadOptions readOptions =
                    ParquetReadOptions.builder()
                            .withRecordFilter(filter)
                            .useStatsFilter(true)
                            .useColumnIndexFilter(true)
                            .useRecordFilter(true)
                            .useDictionaryFilter(false)
                            .useBloomFilter(false)
                            .build();
            long start = System.nanoTime();
            long firstRow = -1;
            int rows = 0;
            long fingerprint = Fingerprint.start();
            try (ParquetFileReader reader = ParquetFileReader.open(input, readOptions)) {
                MessageType schema = reader.getFooter().getFileMetaData().getSchema();
                MessageColumnIO io =
                        new ColumnIOFactory(reader.getFooter().getFileMetaData().getCreatedBy())
                                .getColumnIO(schema);
                PageReadStore pages;
                while ((pages = reader.readNextFilteredRowGroup()) != null) {
                    RecordReader<Group> records =
                            io.getRecordReader(pages, new GroupRecordConverter(schema), filter);
                    for (long i = 0, n = pages.getRowCount(); i < n; i++) {
                        Group g = records.read();
                        if (g == null || records.shouldSkipCurrentRecord()) {
                            continue;
                        }
                        if (firstRow < 0) {
                            firstRow = System.nanoTime() - start;
                        }
                        rows++;
                        fingerprint = fingerprintRow(fingerprint, g);
                    }
                }
            }
            long nanos = System.nanoTime() - start;
            return new Query(
                    nanos,
                    firstRow,
                    stats.bytesRead(),
                    stats.readRequests(),
                    regions.dataBytes.sum(),
                    regions.dataRequests.sum(),
                    regions.fullChunkReads.sum(),
                    rows,
                    fingerprint);
        }
    }

    /** Every output value and null position, in order. */
    private static long fingerprintRow(long h, Group g) {
        h = Fingerprint.fnv1a(h, g.getBinary("f", 0).getBytes());
        for (int c = 0; c < PageIndexFixture.PAYLOAD_COLUMNS; c++) {
            String col = PageIndexFixture.column(c);
            if (g.getFieldRepetitionCount(col) == 0) {
                h = Fingerprint.mixLong(h, -1);
            } else {
                h = Fingerprint.mixLong(h, c);
                h = Fingerprint.fnv1a(h, g.getString(col, 0).getBytes(StandardCharsets.UTF_8));
            }
        }
        return h;
    }

    /** Byte ranges of every column chunk, read from the footer outside the counted reads. */
    private static long[][] chunkRanges(Path path) throws Exception {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
            List<long[]> ranges = new ArrayList<>();
            for (BlockMetaData block : reader.getRowGroups()) {
                for (ColumnChunkMetaData c : block.getColumns()) {
                    ranges.add(
                            new long[] {c.getStartingPos(), c.getStartingPos() + c.getTotalSize()});
                }
            }
            long[] start = new long[ranges.size()];
            long[] end = new long[ranges.size()];
            for (int i = 0; i < start.length; i++) {
                start[i] = ranges.get(i)[0];
                end[i] = ranges.get(i)[1];
            }
            return new long[][] {start, end};
        }
    }
}
