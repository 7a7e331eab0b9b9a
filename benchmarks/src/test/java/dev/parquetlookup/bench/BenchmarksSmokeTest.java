package dev.parquetlookup.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs every suite with {@code --quick} at a tiny size so the benchmarks never rot. Checks the
 * output contract (RESULT and RATIO lines, results.csv, PNG charts, fingerprints), never timings.
 */
class BenchmarksSmokeTest {

    private static final Pattern RESULT =
            Pattern.compile(
                    "RESULT suite=\\S+ system=\\S+ case=\\S+ threads=\\d+ ops_per_s=\\d+"
                            + " p50_us=[\\d.]+ p99_us=[\\d.]+ bytes_per_op=(\\d+|NA)"
                            + " reads_per_op=([\\d.]+|NA) heap_mb=(\\d+|NA) .*");

    @TempDir Path out;

    @Test
    void everySuiteRunsAndHonoursTheOutputContract() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream console = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code =
                    BenchMain.run(
                            console,
                            "all",
                            "--quick",
                            "--rows",
                            "50000",
                            "--run-ms",
                            "20",
                            // objectstore: short windows, two delays (every path, little time)
                            "--window-ms",
                            "300",
                            "--delays",
                            "0,10",
                            "--out",
                            out.toString());
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(output); // the suites' own timings (NOTE suite=... took), in the report
        assertThat(code).as(output).isZero();
        List<String> lines = output.lines().toList();

        List<String> results = lines.stream().filter(l -> l.startsWith("RESULT ")).toList();
        assertThat(results).as(output).allMatch(l -> RESULT.matcher(l).matches());
        for (String system :
                List.of(
                        "parquet-lookup",
                        "parquet-lookup-pagecache",
                        "parquet-java",
                        "parquet-java-reader",
                        "duckdb",
                        "hashmap",
                        "floor")) {
            assertThat(results)
                    .as("reader results of " + system)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                            "RESULT suite=reader system="
                                                    + system
                                                    + " case=uniform threads=1 "));
        }
        assertThat(results)
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "RESULT suite=reader system=parquet-lookup case=cold-start"));
        // The unsorted case: index build and bytes per row by key type, lookups vs sorted.
        assertThat(lines)
                .anyMatch(l -> l.contains("case=unsorted-index-build key=BIGINT rows=50000"))
                .anyMatch(l -> l.contains("case=unsorted-index-bytes key=STRING+INT rows=50000"))
                .anyMatch(
                        l ->
                                l.startsWith("RATIO suite=reader case=unsorted-uniform threads=1")
                                        && l.contains(
                                                "parquet-lookup-unsorted/parquet-lookup-sorted="))
                // The same rows scrambled over 10 files, one table, with CPU per lookup.
                .anyMatch(
                        l ->
                                l.startsWith(
                                                "RATIO suite=reader case=unsorted-files10-uniform"
                                                        + " threads=1")
                                        && l.contains(
                                                "cpu_per_lookup_parquet-lookup-unsorted-files/"
                                                        + "parquet-lookup-sorted="));
        // What the open tables hold: their heap in the RESULT lines (an index's table has index
        // files, the sorted file none), the heap per row and the index files in a NOTE line.
        for (String variant : List.of("uniform", "files10-uniform")) {
            String unsorted =
                    variant.equals("uniform")
                            ? "parquet-lookup-unsorted"
                            : "parquet-lookup-unsorted-files";
            assertThat(results)
                    .as("the footprint of the unsorted case " + variant)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "RESULT suite=reader system="
                                                    + unsorted
                                                    + " case=unsorted-"
                                                    + variant
                                                    + " threads=1 .* heap_mb=\\d+ .*"
                                                    + " heap_bytes=\\d+ index_bytes=[1-9]\\d*"))
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "RESULT suite=reader system=parquet-lookup-sorted"
                                                    + " case=unsorted-"
                                                    + variant
                                                    + " threads=1 .* heap_mb=\\d+ .*"
                                                    + " heap_bytes=\\d+ index_bytes=0"));
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "NOTE case=unsorted-"
                                                    + variant
                                                    + " memory rows=50000 files=\\d+ heap_mb "
                                                    + unsorted
                                                    + "=[\\d.]+ parquet-lookup-sorted=[\\d.]+"
                                                    + " heap_bytes_per_row "
                                                    + unsorted
                                                    + "=[\\d.]+ parquet-lookup-sorted=[\\d.]+ .*"
                                                    + " index_mb=[\\d.]+ index_bytes_per_row=12\\.\\d\\d"
                                                    + " .* mapped_mb=([\\d.]+|NA)"
                                                    + " resident_mb=([\\d.]+|NA) .*"));
        }
        assertThat(results)
                .as("the DuckDB file served from its local form")
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "RESULT suite=reader system=parquet-lookup-duckdb-local-form"
                                                + " case=no-page-index threads=1 "));
        assertThat(lines)
                .anyMatch(l -> l.matches("NOTE case=no-page-index-local-form build_ms=.*"));
        assertThat(lines)
                .as("lookups by a secondary key against the sort key, and the index's cost")
                .anyMatch(
                        l ->
                                l.matches(
                                        "RATIO suite=reader case=secondary-key-uniform threads=1"
                                                + " parquet-lookup-secondary/parquet-lookup-sortkey"
                                                + "=[\\d.]+.*"))
                .anyMatch(l -> l.matches("NOTE case=secondary-key index key=v .* build_ms=.*"))
                .anyMatch(l -> l.matches("NOTE case=secondary-key full_cache_first_row_ms=.*"));
        assertThat(lines)
                .as("reader ratios carry numbers, not NA")
                .anyMatch(
                        l ->
                                l.matches(
                                        "RATIO suite=reader case=uniform threads=1"
                                                + " parquet-lookup/duckdb=[\\d.]+"
                                                + " parquet-lookup/parquet-java=[\\d.]+"
                                                + " parquet-lookup/floor=[\\d.]+ .*"));
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.matches(
                                        "NOTE fingerprint suite=reader case=zipf threads=2 .*agree=.*parquet-lookup.*"));

        assertThat(results).anyMatch(l -> l.startsWith("RESULT suite=pageindex"));
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "RATIO suite=pageindex case=localized threads=1"
                                                + " bytes_saved_by_offset_index="));
        for (String system : List.of("parquet-lookup-localfile", "parquet-lookup-s3")) {
            assertThat(results)
                    .as("pageindex S3 case of " + system)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                            "RESULT suite=pageindex system="
                                                    + system
                                                    + " case=s3-uniform threads=1 "));
        }
        assertThat(results)
                .as("S3 request counts")
                .anyMatch(
                        l ->
                                l.startsWith("RESULT suite=pageindex system=parquet-lookup-s3 ")
                                        && l.matches(
                                                ".* gets_per_op=[\\d.]+ max_gets_per_op=\\d+"
                                                        + " heads_per_op=0\\.00"
                                                        + " get_bytes_per_op=\\d+ .*"
                                                        + " open_gets_per_file=[\\d.]+"
                                                        + " open_heads_per_file=0 .*"));
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.matches(
                                        "NOTE fingerprint suite=pageindex case=s3-uniform threads=1"
                                                + " .* agree=parquet-lookup-localfile,parquet-lookup-s3"));
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.matches(
                                        "RATIO suite=pageindex case=s3-uniform threads=1"
                                                + " parquet-lookup-localfile/parquet-lookup-s3=[\\d.]+"));
        assertThat(lines).anyMatch(l -> l.startsWith("CONDITIONS suite=reader rows=50000"));

        for (String layoutCase :
                List.of(
                        "rg131072-page256",
                        "dict-on",
                        "codec-zstd",
                        "open-metadata-cold",
                        "gc-zgc")) {
            assertThat(results)
                    .as("layout case " + layoutCase)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                            "RESULT suite=layout system=parquet-lookup case="
                                                    + layoutCase
                                                    + " "));
        }
        assertThat(lines).anyMatch(l -> l.startsWith("RATIO suite=layout case=gc-zgc threads=1"));

        for (String variant :
                List.of(
                        "sync-nocache",
                        "async-nocache",
                        "sync-partial",
                        "async-partial",
                        "full-cache",
                        "in-memory-join")) {
            assertThat(results)
                    .as("flink variant " + variant)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                            "RESULT suite=flink system=flink-sql case="
                                                    + variant
                                                    + " "));
        }
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.startsWith("NOTE fingerprint suite=flink")
                                        && l.endsWith("full-cache,in-memory-join"));
        assertThat(lines)
                .anyMatch(l -> l.startsWith("RATIO suite=flink case=async-nocache threads=2"));
        for (String variant : List.of("sync-nocache", "async-nocache", "full-cache")) {
            assertThat(results)
                    .as("flink variant on the protocol layout " + variant)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                            "RESULT suite=flink system=flink-sql-protocol case="
                                                    + variant
                                                    + " "));
        }
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.startsWith("RATIO suite=flink case=protocol-async-nocache")
                                        && l.contains(" async-nocache/full-cache=")
                                        && l.contains(" async-nocache/sync-nocache="));
        // The same rows unsorted in several files, through key indexes, against them sorted.
        assertThat(results)
                .anyMatch(l -> l.startsWith("RESULT suite=flink system=flink-sql-unsorted case="));
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.startsWith(
                                                "RATIO suite=flink"
                                                        + " case=unsorted-async-nocache-vs-sorted")
                                        && l.contains(
                                                " async-nocache/protocol-sorted-async-nocache="));
        // The protocol file joined on v (a secondary key) against it joined on k, and against FULL.
        assertThat(results)
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "RESULT suite=flink system=flink-sql-secondary"
                                                + " case=full-cache "));
        for (String variant : List.of("sync-nocache", "async-nocache")) {
            // Once indexed, with the index built in the job (cold), and FULL's first row.
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "RATIO suite=flink case=secondary-"
                                                    + variant
                                                    + "-vs-sortkey threads=2 "
                                                    + variant
                                                    + "/protocol-sortkey-"
                                                    + variant
                                                    + "=[\\d.]+ "
                                                    + variant
                                                    + "-cold/protocol-sortkey-"
                                                    + variant
                                                    + "=[\\d.]+ full_cache_first_row/"
                                                    + variant
                                                    + "-cold_first_row=[\\d.]+.*"));
            // The unsorted files' first row with their indexes deleted, against the sorted file.
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                                    "RATIO suite=flink case=unsorted-"
                                                            + variant
                                                            + "-cold-vs-sorted")
                                            && l.contains(
                                                    " "
                                                            + variant
                                                            + "-cold/protocol-sorted-"
                                                            + variant
                                                            + "="));
        }

        assertThat(results)
                .as("objectstore: the server ceiling")
                .anyMatch(
                        l ->
                                l.matches(
                                        "RESULT suite=objectstore system=s3proxy-ceiling"
                                                + " case=d0-ranged-get-8k threads=32 ops_per_s=\\d+ .*"
                                                + " inflight_mean=[\\d.]+ inflight_max=\\d+ .*"));
        for (String mix : List.of("uniform", "skewed")) {
            for (String phase : List.of("cold", "warm")) {
                assertThat(results)
                        .as("objectstore local " + mix + " " + phase)
                        .anyMatch(
                                l ->
                                        l.startsWith(
                                                "RESULT suite=objectstore system=parquet-lookup-local"
                                                        + " case="
                                                        + mix
                                                        + "-"
                                                        + phase
                                                        + " threads=2 "));
                for (int d : new int[] {0, 10}) {
                    String caseName = "d" + d + "-" + mix + "-" + phase;
                    assertThat(results)
                            .as("objectstore S3 " + caseName)
                            .anyMatch(
                                    l ->
                                            l.startsWith(
                                                            "RESULT suite=objectstore"
                                                                    + " system=parquet-lookup-s3 case="
                                                                    + caseName
                                                                    + " threads=2 ")
                                                    && l.matches(
                                                            ".* first_row_ms=[\\d.]+ .*"
                                                                    + " delay_ms="
                                                                    + d
                                                                    + " .* gets_per_s=\\d+"
                                                                    + " request_ms=[\\d.]+"
                                                                    + " inflight_mean=[\\d.]+"
                                                                    + " inflight_max=\\d+ .*"
                                                                    + " binding_bound=\\S+ .*"));
                    assertThat(lines)
                            .anyMatch(
                                    l ->
                                            l.matches(
                                                    "RATIO suite=objectstore case="
                                                            + caseName
                                                            + " threads=2 ours/bound=\\S+"
                                                            + " ours/bound_1get=\\S+"
                                                            + " ours/local=\\S+"));
                }
            }
        }
        // The tail case: every lookup to S3, 1 in 50 GETs held, each variant a job of its own.
        for (String variant :
                List.of(
                        "no-spikes",
                        "spikes-hedged",
                        "spikes-unhedged",
                        "unordered-no-spikes",
                        "unordered-spikes-hedged",
                        "unordered-spikes-unhedged")) {
            assertThat(results)
                    .as("objectstore tail " + variant)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                                    "RESULT suite=objectstore system=parquet-lookup-s3-"
                                                            + variant
                                                            + " case=tail-d20-uniform threads=1 ")
                                            && l.matches(".* p99_lookup_over_median_get=\\S+ .*")
                                            && l.matches(
                                                    ".* bound=\\S+ binding_bound=\\S+"
                                                            + " ours_over_bound=\\S+ .*"));
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "NOTE objectstore tail "
                                                    + variant
                                                    + " dim_s3_cold(_unhedged)? warm=\\d+/s .* held=\\d+"
                                                    + " gets=\\d+ hedges=\\d+ won=\\d+ over_budget=\\d+ .*"
                                                    + " ours/bound=\\S+ .*"));
        }
        assertThat(lines)
                .as("the tail case's ratios to the same output mode without spikes")
                .anyMatch(
                        l ->
                                l.matches(
                                        "RATIO suite=objectstore case=tail-d20-uniform threads=1"
                                                + " spikes_hedged/no_spikes=[\\d.]+"))
                .anyMatch(
                        l ->
                                l.matches(
                                        "RATIO suite=objectstore case=tail-d20-uniform threads=1"
                                                + " unordered_spikes_hedged/unordered_no_spikes=[\\d.]+"));
        // Its paced jobs (400 events/s by default): ordered output, the lookups' latencies of the
        // warm window alone.
        for (String variant :
                List.of("paced-no-spikes", "paced-spikes-hedged", "paced-spikes-unhedged")) {
            assertThat(results)
                    .as("objectstore tail " + variant)
                    .anyMatch(
                            l ->
                                    l.startsWith(
                                                    "RESULT suite=objectstore system=parquet-lookup-s3-"
                                                            + variant
                                                            + " case=tail-d20-uniform threads=1 ")
                                            && l.matches(
                                                    ".* rate_target=400 .*"
                                                            + " p99_lookup_over_median_get=\\S+ .*"
                                                            + " lookups=\\d+ latency_samples=\\d+"
                                                            + " samples_in_window=(true|false) .*"));
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "NOTE objectstore tail "
                                                    + variant
                                                    + " dim_s3_cold(_unhedged)? warm=\\d+/s"
                                                    + " target=400/s .* held=\\d+ gets=\\d+"
                                                    + " hedges=\\d+ won=\\d+ over_budget=\\d+ .*"
                                                    + " ours/bound=\\S+ .*"));
        }
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.matches(
                                        "RATIO suite=objectstore case=tail-d20-uniform threads=1"
                                                + " paced_spikes_hedged/paced_no_spikes=[\\d.]+"));
        assertThat(lines).anyMatch(l -> l.startsWith("CONDITIONS suite=objectstore rows=50000 "));
        assertThat(lines).anyMatch(l -> l.startsWith("NOTE load suite=objectstore start="));
        // The objectstore suite's opening case, scaled down below 1M rows: 50 small files.
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "NOTE open-scale config files=50 rows_per_file=1000"
                                                + " big_rows=50000 "));
        for (int d : new int[] {0, 10}) {
            for (String mode : List.of("eager_index(before,16_threads)", "lazy_index(after)")) {
                for (String[] table : new String[][] {{"small", "50"}, {"big", "1"}}) {
                    assertThat(lines)
                            .as("open-scale %s %s at %d ms", table[0], mode, d)
                            .anyMatch(
                                    l ->
                                            l.matches(
                                                    "NOTE open-scale a table="
                                                            + table[0]
                                                            + " d_ms="
                                                            + d
                                                            + " mode="
                                                            + Pattern.quote(mode)
                                                            + " files="
                                                            + table[1]
                                                            + " open_ms=\\d+ .*gets_per_file=[\\d.]+ .*"));
                }
            }
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "NOTE open-scale b d_ms="
                                                    + d
                                                    + " first_lookup_ms=[\\d.]+"
                                                    + " first_lookup_gets=\\d+ .*"));
            for (String variant : List.of("index/4", "index/4+gc", "large")) {
                assertThat(lines)
                        .as("open-scale eviction variant %s at %d ms", variant, d)
                        .anyMatch(
                                l ->
                                        l.matches(
                                                "NOTE open-scale c d_ms="
                                                        + d
                                                        + " index_bytes=\\d+ row_groups=\\d+"
                                                        + " cache_bytes=\\d+ \\("
                                                        + Pattern.quote(variant)
                                                        + "\\) lookups=50 .* errors=0 .*"));
            }
        }

        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertThat(csv.get(0)).startsWith("suite,system,case,threads,ops_per_s,p50_us,p99_us");
        assertThat(csv).hasSize(results.size() + 1);
        for (String png :
                List.of(
                        "reader-throughput-t1.png",
                        "reader-latency-t1.png",
                        "pageindex-bytes.png",
                        "objectstore-events.png")) {
            Path chart = out.resolve(png);
            assertThat(chart).exists();
            byte[] head = Files.readAllBytes(chart);
            assertThat(head)
                    .as(png + " is a PNG")
                    .startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
        }
    }

    @Test
    void badCommandLinesAreRefusedWithTheUsage() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream console = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            assertThat(BenchMain.run(console, "nosuch")).isEqualTo(2);
            assertThat(BenchMain.run(console, "reader", "--reps", "2")).isEqualTo(2);
            assertThat(BenchMain.run(console, "objectstore", "--option", "novalue")).isEqualTo(2);
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("usage: java -jar");
    }

    @Test
    void flinkLayoutsCanBeChosenWithTheirReference() {
        List<FlinkLayouts.LayoutRun> runs =
                FlinkLayouts.of(BenchOptions.parse("flink", "--layout", "unsorted,secondary"));
        assertThat(runs)
                .extracting(FlinkLayouts.LayoutRun::name)
                .containsExactly("protocol", "unsorted", "secondary");
        // The sorted reference without FULL; the indexed layouts with their cold twins.
        assertThat(runs.get(0).variants()).containsOnlyKeys("sync-nocache", "async-nocache");
        assertThat(runs.get(1).variants())
                .containsOnlyKeys(
                        "sync-nocache", "async-nocache", "sync-nocache-cold", "async-nocache-cold");
        assertThat(runs.get(2).variants()).containsKey("full-cache");
        assertThat(FlinkLayouts.hint("async-nocache-cold")).isEqualTo("'async' = 'true'");
        assertThat(FlinkLayouts.of(BenchOptions.parse("flink", "--layout", "secondary")))
                .extracting(FlinkLayouts.LayoutRun::name)
                .containsExactly("protocol", "secondary");
        assertThat(FlinkLayouts.of(BenchOptions.parse("flink")))
                .extracting(FlinkLayouts.LayoutRun::name)
                .containsExactly("prepared", "protocol", "unsorted", "secondary");
        assertThat(
                        FlinkLayouts.of(BenchOptions.parse("flink", "--layout", "protocol"))
                                .get(0)
                                .variants())
                .containsKey("full-cache");
        assertThatThrownBy(() -> BenchOptions.parse("flink", "--layout", "sorted"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--layout");
    }

    @Test
    void quickMeansOneMillionRowsUnlessRowsAreGiven() {
        assertThat(BenchOptions.parse("reader", "--quick").rows()).isEqualTo(1_000_000);
        assertThat(BenchOptions.parse("reader").rows()).isEqualTo(10_000_000);
        assertThat(BenchOptions.parse("reader", "--rows", "100m").rows()).isEqualTo(100_000_000);
        assertThat(BenchOptions.parse("all", "--threads", "4").threads()).containsExactly(1, 4);
        assertThat(BenchOptions.parse("flink").parallelism()).isEqualTo(2);
        assertThat(BenchOptions.parse("flink", "--parallelism", "1", "--events", "2m").events())
                .isEqualTo(2_000_000);
        BenchOptions objectStore =
                BenchOptions.parse(
                        "objectstore",
                        "--delays",
                        "0,5,20",
                        "--option",
                        "lookup.async.threads=64",
                        "--option",
                        "hadoop.fs.s3a.vectored.active.ranged.reads=64");
        assertThat(objectStore.delaysMillis()).containsExactly(0, 5, 20);
        assertThat(objectStore.connectorOptions())
                .containsEntry("lookup.async.threads", "64")
                .containsEntry("hadoop.fs.s3a.vectored.active.ranged.reads", "64");
        assertThat(BenchOptions.parse("all").suites()).contains("objectstore");
    }
}
