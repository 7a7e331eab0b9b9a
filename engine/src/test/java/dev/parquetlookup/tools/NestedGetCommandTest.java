package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code get} prints nested columns of a DuckDB-written file, NULLs at every level. */
class NestedGetCommandTest {

    @TempDir Path tmp;

    @Test
    void printsListsMapsAndStructs() throws Exception {
        Path file = tmp.resolve("nested.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT i::BIGINT AS k, ['t' || i, NULL] AS tags,"
                            + " MAP {'a': i::INTEGER, 'b': NULL::INTEGER} AS attrs,"
                            + " {'city': 'c' || i, 'zip': NULL::INTEGER} AS addr,"
                            + " CASE WHEN i = 1 THEN NULL ELSE [[i::INTEGER], []] END AS nums"
                            + " FROM range(4) t(i) ORDER BY k) TO '"
                            + file
                            + "' (FORMAT parquet)");
        }
        ToolRunner.Result r = ToolRunner.run("get", file.toString(), "--key", "k", "--value", "2");
        assertThat(r.exitCode()).as("%s", r).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines[0]).isEqualTo("k\ttags\tattrs\taddr\tnums");
        assertThat(lines[1])
                .isEqualTo("2\t[t2, NULL]\t{a=2, b=NULL}\t{city: c2, zip: NULL}\t[[2], []]");
        ToolRunner.Result one =
                ToolRunner.run(
                        "get", file.toString(), "--key", "k", "--value", "1", "--columns", "nums");
        assertThat(one.out()).startsWith("nums\nNULL\n");
    }
}
