package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inspect} on Hive-style partition directories (found by a user: two files both listed as
 * {@code data_0.parquet}, and the partition column silently not a column).
 */
class InspectPartitionDirectoriesTest {

    @TempDir Path dir;

    @Test
    void filesAreNamedBelowTheTableAndPartitionDirectoriesAreNamed() throws Exception {
        Path table = dir.resolve("orders");
        for (String region : new String[] {"eu", "us"}) {
            Path file =
                    Files.createDirectories(table.resolve("region=" + region))
                            .resolve("data_0.parquet");
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                    Statement st = c.createStatement()) {
                st.execute(
                        "COPY (SELECT i::BIGINT AS id FROM range("
                                + (region.equals("eu") ? "0, 100" : "100, 200")
                                + ") t(i) ORDER BY i) TO '"
                                + file
                                + "' (FORMAT parquet)");
            }
        }
        ToolRunner.Result r = ToolRunner.run("inspect", table.toString(), "--key", "id");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains("  region=eu/data_0.parquet: 100 rows")
                .contains("  region=us/data_0.parquet: 100 rows")
                .contains("Hive-style key=value directories (region)")
                .contains("so region is no column here");
    }
}
