package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inspect} checks the order of the rows inside pages, as the engine does on a page's first
 * use (found by a user: a DuckDB file whose row groups were in key order but whose rows were
 * shuffled inside them passed {@code inspect --key id} as "verified", exit 0, and then every lookup
 * failed).
 */
class InspectRowOrderTest {

    @TempDir Path dir;

    private void duckdb(Path file, String orderBy) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(
                    "COPY (SELECT i::BIGINT AS id, md5(i::VARCHAR) AS v FROM range(20000) t(i)"
                            + " ORDER BY "
                            + orderBy
                            + ") TO '"
                            + file
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 4096)");
        }
    }

    @Test
    void rowsShuffledInsideRowGroupsAreNotVerified() throws Exception {
        Path shuffled = dir.resolve("shuffled.parquet");
        // Row groups of 4,096 rows in key order, each one's rows in hash order.
        duckdb(shuffled, "i // 4096, hash(i)");
        ToolRunner.Result r = ToolRunner.run("inspect", shuffled.toString(), "--key", "id");
        assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
        assertThat(r.out())
                .contains("Sort order: NOT sorted")
                .contains("the rows inside them are not")
                .doesNotContain("verified by the engine");
    }

    @Test
    void sortedRowsAreVerifiedRowByRow() throws Exception {
        Path sorted = dir.resolve("sorted.parquet");
        duckdb(sorted, "i");
        ToolRunner.Result r = ToolRunner.run("inspect", sorted.toString(), "--key", "id");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains("verified by the engine")
                .contains("every row's value of it, read in file order, does not decrease");
    }
}
