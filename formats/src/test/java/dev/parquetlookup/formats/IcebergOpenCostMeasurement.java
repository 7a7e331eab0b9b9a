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

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.PartitionSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.parquetlookup.formats.IcebergTestTable.range;
import static dev.parquetlookup.formats.IcebergTestTable.rows;

/**
 * What opening an Iceberg table of 1,000 data files costs (issue 14, "Cost"): the format's metadata
 * (version hint, metadata file, manifest list, manifests) and then the data files' footers, against
 * the same files opened as a plain directory. A measurement, not a test: run its main with the
 * formats module's test class path; prints one line per figure. Noisy on a shared machine: report
 * the load average beside the figures.
 */
public final class IcebergOpenCostMeasurement {

    private static final int FILES = 1_000;
    private static final int ROWS_PER_FILE = 100;
    private static final int REPEATS = 5;

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("iceberg-open-cost");
        String location = dir.resolve("dim").toUri().toString();
        IcebergTestTable iceberg = IcebergTestTable.create(location, PartitionSpec.unpartitioned());
        AppendFiles append = iceberg.table.newAppend();
        for (int f = 0; f < FILES; f++) {
            long from = (long) f * ROWS_PER_FILE;
            append.appendFile(iceberg.write(rows("r", "eu", range(from, from + ROWS_PER_FILE, 1))));
        }
        append.commit();
        System.out.printf("table: %d data files of %d rows, one snapshot%n", FILES, ROWS_PER_FILE);

        RefreshOptions iceberg1 = RefreshOptions.defaults().withFormat(IcebergFormat.NAME);
        try (FileStore store = HadoopFileStore.create(Map.of())) {
            List<Long> metadata = new ArrayList<>();
            for (int i = 0; i < REPEATS + 1; i++) {
                long t0 = System.nanoTime();
                SnapshotSource source =
                        TableFormat.find(IcebergFormat.NAME).open(location, Map.of(), store);
                int n = source.list(null).files().size();
                metadata.add((System.nanoTime() - t0) / 1_000);
                if (n != FILES) {
                    throw new AssertionError(n + " files listed");
                }
            }
            System.out.printf(
                    "iceberg metadata only (load + list the snapshot's files): first %d us,"
                            + " then median %d us%n",
                    metadata.get(0), median(metadata.subList(1, metadata.size())));
        }

        for (String mode : List.of("iceberg", "files")) {
            List<Long> opens = new ArrayList<>();
            long bytes = 0;
            long reads = 0;
            for (int i = 0; i < REPEATS; i++) {
                String path = mode.equals("iceberg") ? location : location + "/data";
                TableConfig config =
                        TableConfig.builder(path)
                                .sortKey(List.of("id"))
                                .metadataCache(new MetadataCache(256L << 20))
                                .build();
                long t0 = System.nanoTime();
                try (RefreshingTable table =
                        RefreshingTable.open(
                                config,
                                mode.equals("iceberg") ? iceberg1 : RefreshOptions.defaults())) {
                    opens.add((System.nanoTime() - t0) / 1_000);
                    bytes = table.readStatistics().bytesRead();
                    reads = table.readStatistics().readRequests();
                    if (mode.equals("iceberg") && i == REPEATS - 1) {
                        refreshes(table, iceberg);
                    }
                }
            }
            System.out.printf(
                    "open as '%s' with a cold metadata cache: median %d us (runs %s), %,d bytes of"
                            + " Parquet metadata in %d reads%n",
                    mode, median(opens), opens, bytes, reads);
        }
    }

    private static void refreshes(RefreshingTable table, IcebergTestTable iceberg)
            throws Exception {
        List<Long> unchanged = new ArrayList<>();
        for (int i = 0; i < REPEATS; i++) {
            long t0 = System.nanoTime();
            RefreshResult r = table.refresh();
            unchanged.add((System.nanoTime() - t0) / 1_000);
            if (r != RefreshResult.UNCHANGED) {
                throw new AssertionError(r);
            }
        }
        long from = (long) FILES * ROWS_PER_FILE;
        iceberg.append(rows("n", "eu", range(from, from + ROWS_PER_FILE, 1)));
        long t0 = System.nanoTime();
        RefreshResult r = table.refresh();
        long swap = (System.nanoTime() - t0) / 1_000;
        if (r != RefreshResult.SWAPPED) {
            throw new AssertionError(r);
        }
        System.out.printf(
                "iceberg refresh, no new snapshot: median %d us; a new snapshot adding 1 file"
                        + " to %d: %d us%n",
                median(unchanged), FILES, swap);
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private IcebergOpenCostMeasurement() {}
}
