package dev.parquetlookup.tools;

import dev.parquetlookup.engine.local.PageSizeRule;
import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.engine.lookup.DeletedRows;
import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.engine.source.SnapshotSource.Listing;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.PageIndexOrigin;
import dev.parquetlookup.tools.FileLayout.SortVerdict;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code inspect PATH}: the layout of Parquet files as it matters for point lookups, what one
 * lookup will read, and what to change. Each file is read by the engine's metadata path ({@link
 * LayoutReader}), so the footer parse, the sort-key resolution and the sortedness verdict are the
 * engine's; {@link LayoutReport} holds the model, {@link LookupCost} the cost model, {@link
 * LayoutPrinter} the text. Exit status 1 when the files cannot serve lookups as they are (not
 * sorted, or disagreeing on columns or sort key).
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description = {
            "Report the layout of Parquet files for point lookups: files, rows, row groups, rows"
                    + " and bytes per page per column, dictionary and codec per column, page"
                    + " index, the sort key and the engine's verdict on the sort order, columns on"
                    + " which files disagree, the predicted bytes and reads of one lookup, and"
                    + " recommendations.",
            "Files that do not declare their sort order (DuckDB, Spark, most writers) need the"
                    + " key column named with --key for the order to be checked.",
            "",
            "Examples:",
            "  inspect /data/lookup/customers",
            "  inspect s3a://bucket/raw/orders.parquet --key order_id --columns status,total",
            "  inspect --format delta s3a://bucket/lake/customers --key id",
            "",
            "Exit status: 0 usable for lookups (or order unknown: no sort key), 1 not sorted or"
                    + " files that disagree, 2 usage error, 3 unreadable input.",
            ""
        })
final class InspectCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            description =
                    "A Parquet file or a directory of them, or a table root with --format (local"
                            + " path or Hadoop URI).")
    String path;

    @Option(
            names = "--key",
            paramLabel = "COLUMN",
            split = ",",
            description =
                    "Sort-key column to verify, most significant first (repeatable); needed for"
                            + " files that do not declare their sort order.")
    List<String> keys = new ArrayList<>();

    /** A table format's files' sort key in their own names (read by {@link #read}). */
    private final Map<FileId, List<String>> storedKeys = new HashMap<>();

    /** Whether {@link #keys} came from the table format's sort order, not from --key. */
    private boolean keyFromTable;

    @Option(
            names = "--columns",
            paramLabel = "A,B",
            split = ",",
            description = "Columns a lookup returns, for the cost prediction (default: all).")
    List<String> columns = new ArrayList<>();

    @Mixin HadoopOptionsMixin hadoop;

    @Mixin TableFormatMixin tableFormat;

    @Override
    public Integer call() throws IOException {
        List<FileLayout> layouts = new ArrayList<>();
        List<String> pageIndexOrigins;
        List<String> localForms;
        Listing listing;
        try (FileStore store = HadoopFileStore.create(hadoop.options)) {
            listing = tableFormat.current(spec, store, "PATH", path, hadoop.options);
            // Without --key, a table format's declared sort key (an Iceberg sort order) is the
            // key, as in get and SQL.
            if (keys.isEmpty()) {
                keys = new ArrayList<>(listing.sortKey());
                keyFromTable = !keys.isEmpty();
            }
            List<FileId> files = listing.files();
            for (FileId file : files) {
                ColumnBinding binding = listing.columns().get(file);
                FileLayout layout =
                        binding == null ? read(store, file) : read(store, file, binding);
                // The order inside pages, as the engine checks it on a page's first use: a
                // table format's file by its key in the file's own names.
                List<String> storedKey = binding == null ? layout.sortKey() : storedKeys.get(file);
                if (!layout.sortKey().isEmpty()
                        && storedKey != null
                        && storedKey.size() == layout.sortKey().size()) {
                    layout =
                            layout.withVerdict(
                                    RowOrderCheck.check(
                                            file,
                                            storedKey,
                                            layout.sortKey().get(0),
                                            binding == null && tableFormat.isFiles(spec),
                                            hadoop.options,
                                            layout.verdict()));
                }
                if (binding != null && layout.verdict().status() == SortVerdict.Status.NOT_SORTED) {
                    layout = layout.withVerdict(tableVerdict(layout.verdict()));
                }
                layouts.add(layout);
            }
            pageIndexOrigins = pageIndexOrigins(store, files);
            localForms = localForms(store, files);
        }
        LayoutReport report = new LayoutReport(path, layouts);
        List<String> projected =
                columns.isEmpty() ? new ArrayList<>(report.columns.keySet()) : columns;
        Main.requireColumns(spec, projected, report.columns.keySet());
        String keyColumn =
                report.sortKey == null || report.sortKey.isEmpty() ? null : report.sortKey.get(0);
        LookupCost cost = LookupCost.predict(report, keyColumn, projected);
        new LayoutPrinter(spec.commandLine().getOut())
                .print(
                        report,
                        keyFromTable ? List.of() : keys,
                        projected,
                        cost,
                        LookupCost.recommendations(report, keyColumn, tableFormat.isFiles(spec)));
        var out = spec.commandLine().getOut();
        if (listing.version() != null) {
            long deleted =
                    listing.deletedRows().values().stream().mapToLong(DeletedRows::count).sum();
            out.println();
            out.printf(
                    "Table version read: %s of %s (%d data file(s)); %s row(s) of %d file(s)"
                            + " deleted by the version are counted in the rows above but never"
                            + " returned.%n",
                    listing.version(),
                    path,
                    listing.files().size(),
                    Formats.count(deleted),
                    listing.deletedRows().size());
        }
        out.println();
        out.println("Page index lookups use (own, or synthesized from page headers at open):");
        pageIndexOrigins.forEach(line -> out.println("  " + line));
        out.println();
        out.println(
                "Local forms (SQL option 'repage' = 'auto': files whose pages hold more than "
                        + Formats.count(PageSizeRule.MAX_ROWS_PER_PAGE)
                        + " rows on average are copied once into 256-row pages on the TaskManager):");
        localForms.forEach(line -> out.println("  " + line));
        out.flush();
        boolean usable =
                !report.anyNotSorted()
                        && report.sortKeysAgree()
                        && report.schemaDifferences.isEmpty();
        return usable ? Main.ExitCode.OK : Main.ExitCode.NOT_FOUND_OR_NOT_SORTED;
    }

    /** Per file, whether it gets a local form and its estimated size. */
    private static List<String> localForms(FileStore store, List<FileId> files) throws IOException {
        List<String> lines = new ArrayList<>();
        long total = 0;
        int count = 0;
        for (FileId file : files) {
            try {
                PageSizeRule.Verdict v = PageSizeRule.evaluate(store, file);
                if (v.localForm()) {
                    count++;
                    total += v.estimatedBytes();
                }
                lines.add(
                        file.fileName()
                                + ": "
                                + (v.localForm()
                                        ? "local form of about "
                                                + Formats.bytes(v.estimatedBytes())
                                                + " ("
                                                + v.reason()
                                                + ")"
                                        : "read as it is (" + v.reason() + ")"));
            } catch (LookupFileException | IllegalArgumentException e) {
                lines.add(file.fileName() + ": unknown (" + e.getMessage() + ")");
            }
        }
        lines.add(
                count
                        + " of "
                        + files.size()
                        + " file(s) would get a local form, about "
                        + Formats.bytes(total)
                        + " in all ('repage.max-bytes')");
        return lines;
    }

    /**
     * Per file, the page index the engine would serve lookups with, and what building it cost; a
     * table format's file read by its key in its own names.
     */
    private List<String> pageIndexOrigins(FileStore store, List<FileId> files) throws IOException {
        List<String> lines = new ArrayList<>();
        for (FileId file : files) {
            try (RangeSource source = store.open(file)) {
                FileMetadata meta =
                        MetadataReader.readUnverified(
                                source,
                                storedKeys.getOrDefault(file, keys),
                                PageIndexOptions.synthesized(KeyPageBounds.INSTANCE));
                lines.add(file.fileName() + ": " + describeOrigin(meta));
            } catch (LookupFileException e) {
                lines.add(file.fileName() + ": unknown (" + e.getMessage() + ")");
            }
        }
        return lines;
    }

    /**
     * The page index's origin and cost; for a synthesized one also what a table pays per row group,
     * since tables build it row group by row group on the first lookup into each.
     */
    static String describeOrigin(FileMetadata meta) {
        PageIndexOrigin origin = meta.pageIndex();
        int groups = meta.rowGroups().size();
        if (origin.kind() != PageIndexOrigin.Kind.SYNTHESIZED || groups == 0) {
            return origin.describe();
        }
        return String.format(
                "%s; %,d row group(s), built by a table one by one on the first lookup into each"
                        + " (about %.1f ms and %,d bytes read each)",
                origin.describe(),
                groups,
                origin.nanos() / 1e6 / groups,
                origin.bytesRead() / groups);
    }

    /**
     * A table format's file not sorted by the key: the engine's refusal advice (which names {@code
     * prepare} for plain files) replaced by what happens to it, as a table's data files are never
     * rewritten.
     */
    static SortVerdict tableVerdict(SortVerdict verdict) {
        String detail = verdict.detail();
        int advice = detail.indexOf(" Set 'unsorted-files'");
        return new SortVerdict(
                verdict.status(),
                (advice < 0 ? detail : detail.substring(0, advice))
                        + " The engine serves it through a key index ('unsorted-files' = 'index',"
                        + " the default).");
    }

    /**
     * A table format's file, read with the sort key in its own names and reported with the table's:
     * renamed and added columns and partition constants as the table sees them.
     */
    private FileLayout read(FileStore store, FileId file, ColumnBinding binding)
            throws IOException {
        FileLayout layout =
                LayoutReader.read(store, file, schema -> binding.keyNames(file, schema, keys));
        ColumnBinding.FileView view = binding.view(file, layout.schema(), keys);
        storedKeys.put(file, view.storedKey());
        return layout.asTable(view);
    }

    private FileLayout read(FileStore store, FileId file) throws IOException {
        try {
            return LayoutReader.read(store, file, keys);
        } catch (LookupFileException e) {
            for (String key : keys) {
                if (String.valueOf(e.getMessage()).contains("has no column '" + key + "'")) {
                    throw new ParameterException(
                            spec.commandLine(), "--key: " + Main.inFlagTerms(e.getMessage()), e);
                }
            }
            throw e;
        }
    }
}
