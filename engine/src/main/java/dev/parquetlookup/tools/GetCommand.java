package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.types.ValueType;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code get PATH --value VALUE}: one lookup from the terminal, with what it cost. Exit status 1
 * when no row has the key.
 */
@Command(
        name = "get",
        mixinStandardHelpOptions = true,
        description = {
            "Look a key up in sorted Parquet files with the lookup engine and print the rows,"
                    + " the time, the bytes and the reads it took.",
            "",
            "Values are given with --value in sort-key order; fewer values than key columns look"
                    + " up a leading prefix. Forms: integers 42, decimals 12.50, text as is, binary"
                    + " as hex 0x0a1b, dates 2024-05-01, timestamps 2024-05-01T12:30:00.123.",
            "Files that do not declare their sort order (DuckDB, Spark, most writers) need the"
                    + " key column named with --key.",
            "Any other columns can be looked up too (a secondary key, through a key index per file"
                    + " built on the first lookup): name them with --key, one --value each, and"
                    + " the files' sort key with --sort-key where they do not declare it.",
            "",
            "Examples:",
            "  get /data/lookup/customers --value 42",
            "  get /data/lookup/orders --value 42 --value 2024-05-01 --columns status,total",
            "  get /data/raw/customers.parquet --key id --value 42",
            "  get /data/raw/customers.parquet --sort-key id --key email --value a@example.org",
            "  get --format iceberg s3a://bucket/warehouse/db/customers --key id --value 42",
            "",
            "Exit status: 0 rows found, 1 no row for the key, 2 usage error, 3 unreadable input.",
            ""
        })
final class GetCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            description =
                    "Sorted Parquet file or directory, or a table root with --format (local path"
                            + " or Hadoop URI).")
    String path;

    @Option(
            names = "--key",
            paramLabel = "COLUMN",
            split = ",",
            description =
                    "Sort-key column, most significant first (repeatable); needed for files that"
                            + " do not declare their sort order. Default: the declared sort key.")
    List<String> keyColumns = new ArrayList<>();

    @Option(
            names = "--sort-key",
            paramLabel = "COLUMN",
            split = ",",
            description =
                    "The columns the files are sorted by, where they do not declare it and --key"
                            + " names other columns (a secondary key).")
    List<String> sortKeyColumns = new ArrayList<>();

    @Option(
            names = "--value",
            paramLabel = "VALUE",
            description = "The key value to look up, one per key column in order (repeatable).")
    List<String> keyValues = new ArrayList<>();

    @Option(
            names = "--columns",
            paramLabel = "A,B",
            split = ",",
            description = "Columns to print (default: all columns of types get can read).")
    List<String> columns = new ArrayList<>();

    @Mixin HadoopOptionsMixin hadoop;

    @Mixin TableFormatMixin tableFormat;

    @Override
    public Integer call() throws IOException {
        if (keyValues.isEmpty()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "give the key value to look up with --value, e.g. get "
                            + path
                            + " --value 42"
                            + (keyColumns.isEmpty()
                                    ? ""
                                    : " (--key names the key column, here "
                                            + String.join(",", keyColumns)
                                            + ")"));
        }
        long openStart = System.nanoTime();
        try (Opened opened = open()) {
            long openNanos = System.nanoTime() - openStart;
            DimensionTable table = opened.table();
            ReadStatistics stats = table.readStatistics();
            long openBytes = stats.bytesRead();
            long openReads = stats.readRequests();
            List<String> lookupColumns = lookupColumns(table);
            List<String> skipped = new ArrayList<>();
            LookupPlan plan = plan(table, lookupColumns, skipped);
            Object[] key = parseKey(plan, lookupColumns);

            long start = System.nanoTime();
            List<Object[]> rows = table.lookup(plan, key);
            long nanos = System.nanoTime() - start;

            PrintWriter out = spec.commandLine().getOut();
            printRows(out, plan, rows);
            out.printf(
                    Locale.ROOT,
                    "%s row(s) for (%s) = (%s) in %s: %s bytes in %d read(s)%n",
                    Formats.count(rows.size()),
                    String.join(", ", lookupColumns),
                    String.join(", ", keyValues),
                    Formats.millis(nanos),
                    Formats.count(stats.bytesRead() - openBytes),
                    stats.readRequests() - openReads);
            out.printf(
                    Locale.ROOT,
                    "Opening %d file(s) took %s: %s bytes of metadata in %d read(s), cached for"
                            + " later lookups (this command's time includes starting Hadoop's"
                            + " file system in a fresh JVM; a running job opens a file in"
                            + " milliseconds)%n",
                    table.files().size(),
                    Formats.millis(openNanos),
                    Formats.count(openBytes),
                    openReads);
            if (opened.version() != null) {
                out.printf("Table version read: %s of %s%n", opened.version(), path);
            }
            if (!skipped.isEmpty()) {
                out.printf(
                        "Not printed: column(s) %s, of types or nested shapes this tool cannot read.%n",
                        String.join(", ", skipped));
            }
            out.flush();
            return rows.isEmpty() ? Main.ExitCode.NOT_FOUND_OR_NOT_SORTED : Main.ExitCode.OK;
        }
    }

    /** The table read, what closes it, and the version read (null for plain files). */
    private record Opened(DimensionTable table, Closeable closer, @Nullable String version)
            implements Closeable {
        @Override
        public void close() throws IOException {
            closer.close();
        }
    }

    /** Plain files directly; a table format's current version through the same code as SQL. */
    private Opened open() throws IOException {
        boolean files = tableFormat.isFiles(spec);
        if (files) {
            try (FileStore store = HadoopFileStore.create(hadoop.options)) {
                InputFiles.list(spec, store, "PATH", path);
            }
        }
        TableConfig config = config(sortKeyColumns.isEmpty() ? keyColumns : sortKeyColumns);
        if (files) {
            try {
                DimensionTable table = DimensionTable.open(config);
                return new Opened(table, table, null);
            } catch (LookupFileException e) {
                if (e.getCause() instanceof FileNotFoundException) {
                    throw new ParameterException(
                            spec.commandLine(), "PATH " + path + " does not exist: check the path");
                }
                if (sortKeyColumns.isEmpty() && !keyColumns.isEmpty()) {
                    // --key may name a secondary key of files that declare their sort order.
                    try {
                        DimensionTable table = DimensionTable.open(config(List.of()));
                        List<String> names =
                                table.columns().stream().map(ColumnSchema::name).toList();
                        if (names.containsAll(keyColumns)) {
                            return new Opened(table, table, null);
                        }
                        table.close(); // --key names no column: the first error says so
                    } catch (IOException | RuntimeException declared) {
                        e.addSuppressed(declared);
                    }
                }
                throw e;
            }
        }
        // A table version through the same code as SQL's 'format' option: its files, its deleted
        // rows left out.
        RefreshingTable versions =
                RefreshingTable.open(
                        config, RefreshOptions.defaults().withFormat(tableFormat.name(spec)));
        RefreshingTable.Lease lease = versions.acquire();
        return new Opened(
                lease.table(),
                () -> {
                    lease.close();
                    versions.close();
                },
                lease.sourceVersion());
    }

    private TableConfig config(List<String> sortKey) {
        return TableConfig.builder(path)
                .sortKey(sortKey)
                .hadoopOptions(hadoop.options)
                .metadataCache(new MetadataCache(64L << 20))
                .build();
    }

    /**
     * The columns looked up: {@code --key} when it is not a leading part of the table's sort key (a
     * secondary key, one {@code --value} per column), else the sort key's first columns, one per
     * {@code --value}.
     */
    private List<String> lookupColumns(DimensionTable table) {
        List<String> tableKey = table.sortKey();
        if (!keyColumns.isEmpty()
                && !(keyColumns.size() <= tableKey.size()
                        && tableKey.subList(0, keyColumns.size()).equals(keyColumns))) {
            if (keyValues.size() != keyColumns.size()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "got "
                                + keyValues.size()
                                + " --value values for the key ("
                                + String.join(", ", keyColumns)
                                + "), which is not the sort key ("
                                + String.join(", ", tableKey)
                                + "): give one --value per --key column");
            }
            return keyColumns;
        }
        if (keyValues.size() > tableKey.size()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "got "
                            + keyValues.size()
                            + " --value values but the sort key has "
                            + tableKey.size()
                            + " column(s): ("
                            + String.join(", ", tableKey)
                            + ")");
        }
        return tableKey.subList(0, keyValues.size());
    }

    /** The plan for {@code --columns}, or every printable column (the others go to skipped). */
    private LookupPlan plan(
            DimensionTable table, List<String> lookupColumns, List<String> skipped) {
        Main.requireColumns(
                spec, columns, table.columns().stream().map(ColumnSchema::name).toList());
        List<String> printed = columns;
        if (columns.isEmpty()) {
            printed = new ArrayList<>();
            for (ColumnSchema c : table.columns()) {
                ValueType.Kind kind = c.type().kind();
                if (kind == ValueType.Kind.NESTED || kind == ValueType.Kind.UNSUPPORTED) {
                    skipped.add(c.name());
                } else {
                    printed.add(c.name());
                }
            }
        }
        try {
            return table.plan(lookupColumns, printed);
        } catch (LookupFileException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--columns: "
                            + Main.inFlagTerms(e.getMessage())
                                    .replace(
                                            "Leave it out of the table's columns or the query.",
                                            "Leave it out of --columns."));
        }
    }

    private Object[] parseKey(LookupPlan plan, List<String> lookupColumns) {
        Object[] key = new Object[keyValues.size()];
        for (int i = 0; i < key.length; i++) {
            ValueType type = plan.keyTypes().get(i);
            try {
                key[i] = TextValues.parse(type, keyValues.get(i));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--value for column '" + lookupColumns.get(i) + "': " + e.getMessage());
            }
        }
        return key;
    }

    private static void printRows(PrintWriter out, LookupPlan plan, List<Object[]> rows) {
        out.println(String.join("\t", plan.projectedColumns()));
        for (Object[] row : rows) {
            List<String> cells = new ArrayList<>(row.length);
            for (int i = 0; i < row.length; i++) {
                cells.add(Formats.value(plan.projectedTypes().get(i), row[i]));
            }
            out.println(String.join("\t", cells));
        }
    }
}
