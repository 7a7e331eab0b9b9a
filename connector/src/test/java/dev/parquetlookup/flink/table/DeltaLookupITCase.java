package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.datastream.ParquetEnrichment;

import org.apache.flink.test.junit5.MiniClusterExtension;

import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.parquetlookup.flink.table.RefreshingJoin.KEYS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running SQL lookup join on a Delta table ({@code 'format' = 'delta'}) while the Delta kernel
 * commits a new version: every result matches exactly one version and the new one is served within
 * {@code refresh.interval} plus a margin ({@link RefreshingJoin}); a version with a deletion vector
 * through the DataStream builder never returns the deleted rows.
 */
class DeltaLookupITCase {

    private static final StructType SCHEMA =
            new StructType()
                    .add("k", LongType.LONG, false)
                    .add("ver", IntegerType.INTEGER, false)
                    .add("label", StringType.STRING, false);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster(1);

    @TempDir Path dir;

    @Test
    void enrichmentFollowsTheTablesVersions() throws Exception {
        String location = dir.resolve("dim").toUri().toString();
        DeltaKernelTable delta = DeltaKernelTable.create(location, SCHEMA, Map.of(), "test");
        io.delta.kernel.data.Row v1 = delta.append(version(1), List.of());

        // Version 2 replaces version 1's only data file (remove + add in one commit).
        RefreshingJoin.switchesToVersion2(
                "delta",
                "'format' = 'delta', 'path' = '" + location + "', 'sort-key' = 'k'",
                () -> delta.append(version(2), List.of(DeltaKernelTable.remove(v1))));
    }

    @Test
    void dataStreamEnrichmentLeavesOutRowsDeletedByADeletionVector() throws Exception {
        String location = dir.resolve("ds").toUri().toString();
        DeltaKernelTable delta =
                DeltaKernelTable.create(
                        location, SCHEMA, Map.of("delta.enableDeletionVectors", "true"), "test");
        io.delta.kernel.data.Row v1 = delta.append(version(3), List.of());
        // Rows (= keys) 10..19 deleted by an inline deletion vector.
        delta.deleteRows(v1, 10, 20);

        List<Long> keys = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (long k = 0; k < KEYS + 10; k++) {
            keys.add(k);
            expected.add(k + " " + (k < KEYS && (k < 10 || k >= 20) ? k + "/3" : "-"));
        }
        assertThat(
                        RefreshingJoin.labelsThroughDataStream(
                                ParquetEnrichment.<Long>from(location).format("DELTA"), keys))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /** The columns of one data file of keys 0..KEYS-1 at version {@code ver}: k, ver, "k/ver". */
    private static List<List<Object>> version(int ver) {
        List<Object> ks = new ArrayList<>();
        List<Object> vers = new ArrayList<>();
        List<Object> labels = new ArrayList<>();
        for (long k = 0; k < KEYS; k++) {
            ks.add(k);
            vers.add(ver);
            labels.add(k + "/" + ver);
        }
        return List.of(ks, vers, labels);
    }
}
