package dev.parquetlookup.bench;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;

import org.duckdb.DuckDBConnection;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code reader} suite's no-page-index case: the seed data in files without a page index,
 * served by this engine with the page index it synthesizes at open, against the same data with its
 * own page index and against the row-group fallback (synthesis off), in one run, on the same keys.
 *
 * <ul>
 *   <li>{@code own}: the seed file (lookup layout: 1,024-row pages, page index on);
 *   <li>{@code stripped}: the same file with its page index removed ({@link PageIndexStripper}), as
 *       parquet-java writes with the index disabled: the pages are byte for byte the same;
 *   <li>{@code duckdb}: the seed data written by DuckDB's {@code COPY ... (FORMAT parquet)}
 *       (defaults: 122,880-row row groups, no page index, and one data page per column chunk);
 *   <li>{@code duckdb-local-form}: the DuckDB file served from its local form (SQL option {@code
 *       repage}), built first in this run from a fresh directory: the build's time and rows/s are
 *       reported too.
 * </ul>
 *
 * Also measured: open time, bytes read at open and metadata bytes of each file (median of the
 * repetitions, a fresh metadata cache each time), with the page index read or synthesized at open
 * and on first use ({@link #OPEN_MODES}): the cost of each row group's first use too. Runs alone as
 * suite {@code reader-noindex}, which then measures the same opens on S3Proxy ({@link
 * NoPageIndexRemoteCase}).
 */
final class NoPageIndexCase {

    static final String CASE = "no-page-index";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    NoPageIndexCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    /** Runs the case; returns the files it measured, by label (own, stripped, duckdb). */
    Map<String, Path> run() throws Exception {
        SeedLayout layout = SeedLayout.lookupDefault(options.rows());
        Path own = SeedDataset.get(report.out(), layout, log);
        Path dir = report.out().resolve("data");
        Path stripped = dir.resolve("noindex-stripped-" + layout.id() + ".parquet");
        Path duck = dir.resolve("noindex-duckdb-" + options.rows() + ".parquet");
        writeFiles(own, stripped, duck);
        report.conditions(
                "reader",
                "case="
                        + CASE
                        + " rows="
                        + options.rows()
                        + " own="
                        + own.getFileName()
                        + " ("
                        + Files.size(own)
                        + " bytes, "
                        + layout.describe()
                        + ") stripped="
                        + Files.size(stripped)
                        + " bytes duckdb="
                        + Files.size(duck)
                        + " bytes (DuckDB COPY defaults) threads=1 page-cache=off run_ms="
                        + options.runMillis()
                        + " reps="
                        + options.repetitions());

        Map<String, Path> files = new LinkedHashMap<>();
        files.put("own", own);
        files.put("stripped", stripped);
        files.put("duckdb", duck);
        for (Map.Entry<String, Path> f : files.entrySet()) {
            for (String mode : OPEN_MODES) {
                if (f.getKey().equals("own") == mode.startsWith("own")) {
                    openCost(f.getKey(), f.getValue(), mode);
                }
            }
        }

        lookups(own, stripped, duck);
        ResultRow ownRow = report.find("reader", "parquet-lookup-own-index", CASE, 1);
        for (String name :
                List.of(
                        "parquet-lookup-stripped-synthesized",
                        "parquet-lookup-stripped-no-index",
                        "parquet-lookup-duckdb-synthesized",
                        "parquet-lookup-duckdb-no-index",
                        "parquet-lookup-duckdb-local-form")) {
            ResultRow row = report.find("reader", name, CASE, 1);
            if (row != null && ownRow != null && ownRow.p50Micros() > 0) {
                report.ratioLine(
                        "reader",
                        CASE,
                        1,
                        name + "/own-index:p50",
                        row.p50Micros() / ownRow.p50Micros());
            }
        }
        return files;
    }

    /** The seed file with its page index stripped, and DuckDB's copy, when missing or stale. */
    private void writeFiles(Path own, Path stripped, Path duck) throws Exception {
        if (!Files.exists(stripped)
                || Files.getLastModifiedTime(stripped).compareTo(Files.getLastModifiedTime(own))
                        < 0) {
            PageIndexStripper.strip(own, stripped);
        }
        if (!Files.exists(duck)
                || Files.getLastModifiedTime(duck).compareTo(Files.getLastModifiedTime(own)) < 0) {
            long t0 = System.nanoTime();
            Files.deleteIfExists(duck);
            try (DuckDBConnection conn = DuckDbSystem.openDatabase();
                    Statement st = conn.createStatement()) {
                st.execute(
                        "COPY (SELECT k, v FROM read_parquet('"
                                + own.toAbsolutePath()
                                + "') ORDER BY k) TO '"
                                + duck.toAbsolutePath()
                                + "' (FORMAT parquet)");
            }
            log.printf(
                    "NOTE generated %s with DuckDB COPY in %.1f s%n",
                    duck.getFileName(), (System.nanoTime() - t0) / 1e9);
        }
    }

    /**
     * Builds the local form of DuckDB's file in a fresh directory, as a TaskManager does in the
     * background (the rule's check, the copy, its CRC and manifest), and reports its cost.
     */
    @Nullable
    private LocalForms buildLocalForm(Path duck) throws Exception {
        Path dir = report.out().resolve("data").resolve("local-forms-" + options.rows());
        if (Files.exists(dir)) {
            try (var files = Files.list(dir)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    Files.delete(p);
                }
            }
        }
        String loadBefore = ObjectStoreSuite.loadAverage();
        LocalForms forms = LocalForms.shared(dir, 1L << 40);
        long t0 = System.nanoTime();
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(duck.toAbsolutePath().toString());
            LocalForms.Outcome outcome = forms.settle(id, store, List.of("k")).get();
            if (outcome.kind() != LocalForms.Kind.READY) {
                // A tiny --rows: one small row group, whose pages are small enough already.
                report.note("case=" + CASE + "-local-form none: " + outcome);
                return null;
            }
        }
        long nanos = System.nanoTime() - t0;
        LocalForms.Stats stats = forms.stats();
        report.note(
                String.format(
                        Locale.ROOT,
                        "case=%s-local-form build_ms=%.0f build_rows_per_s=%.0f settle_ms=%.0f"
                                + " form_bytes=%d source_bytes=%d rows=%d load_before=%s"
                                + " load_after=%s",
                        CASE,
                        stats.buildNanos() / 1e6,
                        stats.rowsBuilt() * 1e9 / Math.max(1, stats.buildNanos()),
                        nanos / 1e6,
                        stats.bytes(),
                        Files.size(duck),
                        stats.rowsBuilt(),
                        loadBefore,
                        ObjectStoreSuite.loadAverage()));
        return forms;
    }

    /** Lookups on each file with its index (own, synthesized) and without (the fallback). */
    private void lookups(Path own, Path stripped, Path duck) throws Exception {
        List<LookupSystem> systems = new ArrayList<>();
        long rows = options.rows();
        LocalForms forms = buildLocalForm(duck);
        try {
            systems.add(new EngineOnFile("parquet-lookup-own-index", own, true, rows));
            systems.add(
                    new EngineOnFile("parquet-lookup-stripped-synthesized", stripped, true, rows));
            systems.add(
                    new EngineOnFile("parquet-lookup-stripped-no-index", stripped, false, rows));
            systems.add(new EngineOnFile("parquet-lookup-duckdb-synthesized", duck, true, rows));
            systems.add(new EngineOnFile("parquet-lookup-duckdb-no-index", duck, false, rows));
            if (forms != null) {
                systems.add(
                        new EngineOnFile(
                                "parquet-lookup-duckdb-local-form", duck, true, rows, forms));
            }
            for (LookupSystem s : systems) {
                report.note("system=" + s.name() + " config=\"" + s.config() + "\"");
            }
            // The fallback reads a whole chunk per lookup (milliseconds): fewer keys suffice.
            int keyCount = options.quick() ? 20_000 : 100_000;
            long[] keys = KeyMix.UNIFORM.keys(options.rows(), keyCount, 0);
            long[] warm = KeyMix.UNIFORM.keys(options.rows(), Math.min(keyCount, 20_000), 1);
            CaseRunner.Outcome outcome =
                    CaseRunner.measure(
                            "reader",
                            CASE,
                            systems,
                            options.rows(),
                            keys,
                            warm,
                            1,
                            options,
                            report);
            for (LookupSystem s : systems) {
                report.result(
                        CaseRunner.row(
                                "reader", s, null, CASE, 1, outcome.runs().get(s), Map.of()));
            }
        } finally {
            for (LookupSystem s : systems) {
                s.close();
            }
        }
    }

    /**
     * How the metadata is read: own index at open or on first use; synthesis off, at open, lazy.
     */
    static final List<String> OPEN_MODES =
            List.of("own-at-open", "own-on-first-use", "off", "at-open", "on-first-use");

    static PageIndexOptions options(String mode) {
        PageIndexOptions synthesized = PageIndexOptions.synthesized(KeyPageBounds.INSTANCE);
        return switch (mode) {
            case "own-at-open" -> synthesized;
            case "own-on-first-use", "on-first-use" -> synthesized.lazily();
            case "off" -> PageIndexOptions.OWN.lazily();
            case "at-open" -> synthesized.lazily().atOpen();
            default -> throw new IllegalArgumentException(mode);
        };
    }

    /**
     * Reads {@code file}'s metadata as a table open does (footer, page index own or synthesized, at
     * open or not, sort check): time, bytes and reads, metadata bytes (median of the repetitions).
     * Then, for an index built on first use, the cost of each row group's first use (read or
     * synthesized, no lookup) and the metadata bytes once every row group is built.
     */
    private void openCost(String label, Path file, String mode) throws Exception {
        int reps = Math.max(3, options.repetitions());
        long[] nanos = new long[reps];
        ReadStatistics stats = null;
        FileMetadata meta = null;
        FirstUse firstUse;
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(file.toAbsolutePath().toString());
            for (int i = 0; i < reps; i++) {
                stats = new ReadStatistics();
                long t0 = System.nanoTime();
                try (RangeSource source = new CountingRangeSource(store.open(id), stats)) {
                    meta = MetadataReader.read(source, List.of("k"), options(mode));
                }
                nanos[i] = System.nanoTime() - t0;
            }
            firstUse = firstUse(store, id, mode);
        }
        Arrays.sort(nanos);
        report.note(
                String.format(
                        Locale.ROOT,
                        "case=%s-open file=%s mode=%s open_ms_median=%.1f open_ms_min=%.1f"
                                + " open_ms_max=%.1f bytes_read_at_open=%d reads_at_open=%d"
                                + " metadata_bytes_at_open=%d row_groups=%d page_index=\"%s\""
                                + " first_use_ms_per_row_group_median=%.2f"
                                + " first_use_ms_per_row_group_max=%.2f first_use_ms_all=%.1f"
                                + " first_use_bytes_all=%d metadata_bytes_all_built=%d load=%s",
                        CASE,
                        label,
                        mode,
                        nanos[reps / 2] / 1e6,
                        nanos[0] / 1e6,
                        nanos[reps - 1] / 1e6,
                        stats.bytesRead(),
                        stats.readRequests(),
                        meta.retainedBytes(),
                        meta.rowGroups().size(),
                        meta.pageIndex().describe(),
                        firstUse.medianMs(),
                        firstUse.maxMs(),
                        firstUse.totalMs(),
                        firstUse.bytes(),
                        firstUse.metadataBytes(),
                        ObjectStoreSuite.loadAverage()));
    }

    /** What building every row group's index on first use cost (zeros when built at open). */
    private record FirstUse(
            double medianMs, double maxMs, double totalMs, long bytes, long metadataBytes) {}

    private static FirstUse firstUse(HadoopFileStore store, FileId id, String mode)
            throws Exception {
        ReadStatistics stats = new ReadStatistics();
        try (RangeSource source = new CountingRangeSource(store.open(id), stats)) {
            FileMetadata meta = MetadataReader.read(source, List.of("k"), options(mode));
            if (meta.rowGroupIndexes() == null) {
                return new FirstUse(0, 0, 0, 0, meta.retainedBytes());
            }
            MetadataCache cache = new MetadataCache(1L << 30);
            FileMetadata bound = meta.bind(source, cache);
            long before = stats.bytesRead();
            int n = bound.rowGroups().size();
            long[] nanos = new long[n];
            long total = 0;
            for (int r = 0; r < n; r++) {
                long t0 = System.nanoTime();
                bound.rowGroups().get(r);
                nanos[r] = System.nanoTime() - t0;
                total += nanos[r];
            }
            Arrays.sort(nanos);
            return new FirstUse(
                    n == 0 ? 0 : nanos[n / 2] / 1e6,
                    n == 0 ? 0 : nanos[n - 1] / 1e6,
                    total / 1e6,
                    stats.bytesRead() - before,
                    meta.retainedBytes() + cache.stats().bytes());
        }
    }

    static TableConfig config(Path file, boolean synthesize, MetadataCache cache) {
        return TableConfig.builder(file.toAbsolutePath().toString())
                .sortKey(List.of("k"))
                .metadataCache(cache)
                .synthesizePageIndex(synthesize)
                .build();
    }

    /** The engine on one file, synthesis on or off, page cache off. */
    private static final class EngineOnFile extends TableSystem {
        private final String name;
        private final boolean synthesize;
        private final boolean localForm;
        private final LookupPlan plan;

        /**
         * Opens the table; with a page index (own or synthesized, both built per row group on first
         * use), one lookup per 65,536 keys first, so every row group's index is built before the
         * warm-up and the figures are those of a table once opened.
         */
        EngineOnFile(String name, Path file, boolean synthesize, long rows) throws Exception {
            this(name, file, synthesize, rows, null);
        }

        /** With {@code forms}: the file's local form, which must be ready, is read instead. */
        EngineOnFile(
                String name, Path file, boolean synthesize, long rows, @Nullable LocalForms forms)
                throws Exception {
            super(open(file, synthesize, forms));
            this.name = name;
            this.synthesize = synthesize;
            this.localForm = forms != null;
            if (forms != null && !table.files().get(0).path().contains("local-forms")) {
                throw new IllegalStateException("not served from its local form: " + table);
            }
            this.plan = table.plan(List.of("k"), List.of("v"));
            for (long k = 1; synthesize && k <= rows; k += 65_536) {
                table.lookup(plan, new Object[] {k});
            }
        }

        private static DimensionTable open(
                Path file, boolean synthesize, @Nullable LocalForms forms) throws Exception {
            TableConfig config =
                    NoPageIndexCase.config(
                            file, synthesize, new MetadataCache(EngineSystem.METADATA_CACHE_BYTES));
            return DimensionTable.open(forms != null ? config.withLocalForms(forms) : config);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String config() {
            if (localForm) {
                return "DimensionTable, sort key k, projection v, read from the file's local form"
                        + " (256-row pages, page index; built before measuring), page cache off";
            }
            return "DimensionTable, sort key k, projection v, page-index synthesis "
                    + (synthesize
                            ? "on (each row group on first use; all built before measuring)"
                            : "off")
                    + ", page cache off";
        }

        @Override
        public Session session() {
            return k -> value(table.lookup(plan, new Object[] {k}));
        }
    }
}
