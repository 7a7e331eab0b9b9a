package dev.parquetlookup.tools;

import dev.parquetlookup.engine.ColumnSchema;
import dev.parquetlookup.engine.DimensionTable;
import dev.parquetlookup.engine.LookupFileException;
import dev.parquetlookup.engine.LookupPlan;
import dev.parquetlookup.engine.RefreshOptions;
import dev.parquetlookup.engine.RefreshingTable;
import dev.parquetlookup.engine.TableConfig;
import dev.parquetlookup.engine.TableFormat;
import dev.parquetlookup.engine.ValueType;
import dev.parquetlookup.io.ReadStatistics;
import dev.parquetlookup.metadata.MetadataCache;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code get PATH --key VALUE}: one lookup from the terminal, with what it cost. */
@Command(
        name = "get",
        mixinStandardHelpOptions = true,
        description = {
            "Look a key up in sorted Parquet files with the lookup engine and print the rows,"
                    + " the time, the bytes and the reads it took.",
            "",
            "Key values are given in sort-key order; fewer values than key columns look up a"
                    + " leading prefix. Forms: integers 42, decimals 12.50, text as is, binary as"
                    + " hex 0x0a1b, dates 2024-05-01, timestamps 2024-05-01T12:30:00.123.",
            "",
            "Examples:",
            "  get /data/lookup/customers --key 42",
            "  get /data/lookup/orders --key 42 --key 2024-05-01 --columns status,total",
            ""
        })
final class GetCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(
            paramLabel = "PATH",
            description = "Sorted Parquet file or directory (local path or Hadoop URI).")
    String path;

    @Option(
            names = "--key",
            required = true,
            paramLabel = "VALUE",
            description = "A key value, one per sort-key column in order (repeatable).")
    List<String> keyValues;

    @Option(
            names = "--columns",
            paramLabel = "A,B",
            split = ",",
            description = "Columns to print (default: all).")
    List<String> columns = new ArrayList<>();

    @Option(
            names = "--sort-key",
            paramLabel = "A,B",
            split = ",",
            description = "The sort key, for files that do not declare it.")
    List<String> sortKey = new ArrayList<>();

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description =
                    "What PATH is: files (default: a file or directory) or a table format such as"
                            + " iceberg (the table's root; its current version is read and named).")
    String format = TableFormat.FILES;

    @Mixin HadoopOptionsMixin hadoop;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        TableConfig config =
                TableConfig.builder(path)
                        .sortKey(sortKey)
                        .hadoopOptions(hadoop.options)
                        .metadataCache(new MetadataCache(64L << 20))
                        .build();
        long openStart = System.nanoTime();
        RefreshingTable opened;
        try {
            opened = RefreshingTable.open(config, RefreshOptions.defaults().withFormat(format));
        } catch (LookupFileException e) {
            if (e.getCause() instanceof FileNotFoundException) {
                throw new ParameterException(
                        spec.commandLine(), "PATH " + path + " does not exist: check the path");
            }
            throw e;
        }
        try (RefreshingTable versions = opened;
                RefreshingTable.Lease lease = versions.acquire()) {
            DimensionTable table = lease.table();
            long openNanos = System.nanoTime() - openStart;
            ReadStatistics stats = table.readStatistics();
            long openBytes = stats.bytesRead();
            long openReads = stats.readRequests();
            List<String> tableKey = table.sortKey();
            if (keyValues.size() > tableKey.size()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "got "
                                + keyValues.size()
                                + " --key values but the sort key has "
                                + tableKey.size()
                                + " column(s): ("
                                + String.join(", ", tableKey)
                                + ")");
            }
            List<String> names = table.columns().stream().map(ColumnSchema::name).toList();
            for (String c : columns) {
                if (!names.contains(c)) {
                    throw new ParameterException(
                            spec.commandLine(),
                            "--columns names '" + c + "', which is not a column: " + names);
                }
            }
            List<String> keyColumns = tableKey.subList(0, keyValues.size());
            LookupPlan plan = table.plan(keyColumns, columns.isEmpty() ? names : columns);
            Object[] key = new Object[keyValues.size()];
            for (int i = 0; i < key.length; i++) {
                ValueType type = plan.keyTypes().get(i);
                try {
                    key[i] = TextValues.parse(type, keyValues.get(i));
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(
                            spec.commandLine(),
                            "--key for column '" + keyColumns.get(i) + "': " + e.getMessage());
                }
            }
            long start = System.nanoTime();
            List<Object[]> rows = table.lookup(plan, key);
            long nanos = System.nanoTime() - start;
            long bytes = stats.bytesRead() - openBytes;
            long reads = stats.readRequests() - openReads;

            out.println(String.join("\t", plan.projectedColumns()));
            for (Object[] row : rows) {
                List<String> cells = new ArrayList<>(row.length);
                for (int i = 0; i < row.length; i++) {
                    cells.add(Formats.value(plan.projectedTypes().get(i), row[i]));
                }
                out.println(String.join("\t", cells));
            }
            out.printf(
                    Locale.ROOT,
                    "%s row(s) for (%s) = (%s) in %s: %s bytes in %d read(s)%n",
                    Formats.count(rows.size()),
                    String.join(", ", keyColumns),
                    String.join(", ", keyValues),
                    Formats.millis(nanos),
                    Formats.count(bytes),
                    reads);
            out.printf(
                    Locale.ROOT,
                    "Opening %d file(s) took %s: %s bytes of metadata in %d read(s), cached for"
                            + " later lookups%n",
                    table.files().size(),
                    Formats.millis(openNanos),
                    Formats.count(openBytes),
                    openReads);
            if (!TableFormat.FILES.equals(format)) {
                out.printf("Read %s of %s%n", lease.sourceVersion(), path);
            }
            out.flush();
        }
        return 0;
    }
}
