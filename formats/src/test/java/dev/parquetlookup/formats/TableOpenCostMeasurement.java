package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.iceberg.PartitionSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;

/**
 * What opening a table of 1,000 data files costs (issue 14, "Cost"), for each format named in the
 * arguments ({@code delta}, {@code iceberg}; default both): the format's metadata (Delta's log;
 * Iceberg's version hint, metadata file, manifest list and manifests), then the data files'
 * footers, against the same files opened as a plain directory; then a refresh with no new version
 * and one adding a file. A measurement, not a test: run its main with the formats module's test
 * class path; prints one line per figure. Noisy on a shared machine: report the load average beside
 * the figures.
 */
public final class TableOpenCostMeasurement {

    private static final int FILES = 1_000;
    private static final int ROWS_PER_FILE = 100;
    private static final int REPEATS = 5;

    public static void main(String[] args) throws Exception {
        for (String format : args.length == 0 ? new String[] {"delta", "iceberg"} : args) {
            measure(format);
        }
    }

    private static void measure(String format) throws Exception {
        Path dir = Files.createTempDirectory(format + "-open-cost");
        String location = dir.resolve("dim").toUri().toString();
        FormatTestTable<?> table =
                format.equals(DeltaFormat.NAME)
                        ? DeltaTestTable.create(location, Map.of())
                        : IcebergTestTable.create(location, PartitionSpec.unpartitioned());
        // Iceberg keeps the data files below data/, Delta beside its log.
        String files = format.equals(DeltaFormat.NAME) ? location : location + "/data";
        List<List<FormatTestTable.Row>> data = new ArrayList<>();
        for (int f = 0; f < FILES; f++) {
            long from = (long) f * ROWS_PER_FILE;
            data.add(rows("r", "eu", range(from, from + ROWS_PER_FILE, 1)));
        }
        table.appendFiles(data);
        System.out.printf(
                "%s table: %d data files of %d rows, one version%n", format, FILES, ROWS_PER_FILE);

        try (FileStore store = HadoopFileStore.create(Map.of())) {
            List<Long> metadata = new ArrayList<>();
            for (int i = 0; i < REPEATS + 1; i++) {
                long t0 = System.nanoTime();
                SnapshotSource source = TableFormat.find(format).open(location, Map.of(), store);
                int n = source.list(null).files().size();
                metadata.add((System.nanoTime() - t0) / 1_000);
                if (n != FILES) {
                    throw new AssertionError(n + " files listed");
                }
            }
            System.out.printf(
                    "%s metadata only (read it, list the version's files): first %d us,"
                            + " then median %d us%n",
                    format, metadata.get(0), median(metadata.subList(1, metadata.size())));
        }

        for (String mode : List.of(format, "files")) {
            List<Long> opens = new ArrayList<>();
            long bytes = 0;
            long reads = 0;
            for (int i = 0; i < REPEATS; i++) {
                TableConfig config =
                        TableConfig.builder(mode.equals(format) ? location : files)
                                .sortKey(List.of("id"))
                                .metadataCache(new MetadataCache(256L << 20))
                                .build();
                long t0 = System.nanoTime();
                try (RefreshingTable opened =
                        RefreshingTable.open(config, RefreshOptions.defaults().withFormat(mode))) {
                    opens.add((System.nanoTime() - t0) / 1_000);
                    bytes = opened.readStatistics().bytesRead();
                    reads = opened.readStatistics().readRequests();
                    if (mode.equals(format) && i == REPEATS - 1) {
                        refreshes(format, opened, table);
                    }
                }
            }
            System.out.printf(
                    "open as '%s' with a cold metadata cache: median %d us (runs %s), %,d bytes of"
                            + " Parquet metadata in %d reads%n",
                    mode, median(opens), opens, bytes, reads);
        }
    }

    private static void refreshes(String format, RefreshingTable opened, FormatTestTable<?> table)
            throws Exception {
        List<Long> unchanged = new ArrayList<>();
        for (int i = 0; i < REPEATS; i++) {
            long t0 = System.nanoTime();
            RefreshResult r = opened.refresh();
            unchanged.add((System.nanoTime() - t0) / 1_000);
            if (r != RefreshResult.UNCHANGED) {
                throw new AssertionError(r);
            }
        }
        long from = (long) FILES * ROWS_PER_FILE;
        table.append(rows("n", "eu", range(from, from + ROWS_PER_FILE, 1)));
        long t0 = System.nanoTime();
        RefreshResult r = opened.refresh();
        long swap = (System.nanoTime() - t0) / 1_000;
        if (r != RefreshResult.SWAPPED) {
            throw new AssertionError(r);
        }
        System.out.printf(
                "%s refresh, no new version: median %d us; a new version adding 1 file"
                        + " to %d: %d us%n",
                format, median(unchanged), FILES, swap);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private TableOpenCostMeasurement() {}
}
