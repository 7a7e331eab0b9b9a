package dev.parquetlookup.tools;

import dev.parquetlookup.engine.local.PageSizeRule;
import dev.parquetlookup.io.HadoopFileStore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inspect} says which files would get a local form (SQL option {@code repage}) and about how
 * big it would be: a file as DuckDB writes it by default does (one page per 122,880-row chunk), a
 * file with 2,048-row row groups does not.
 */
class InspectLocalFormTest {

    @TempDir Path dir;

    @Test
    void inspectNamesTheFilesThatGetALocalFormAndItsSize() throws Exception {
        Path table = Files.createDirectory(dir.resolve("t"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(
                    "COPY (SELECT i::BIGINT AS id, 'v' || i AS v FROM range(200000) t(i)) TO '"
                            + table.resolve("a-default.parquet")
                            + "' (FORMAT parquet)");
            st.execute(
                    "COPY (SELECT (i + 200000)::BIGINT AS id, 'v' || i AS v FROM range(20000)"
                            + " t(i)) TO '"
                            + table.resolve("b-small.parquet")
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
        }
        PageSizeRule.Verdict verdict;
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            verdict =
                    PageSizeRule.evaluate(
                            store, store.stat(table.resolve("a-default.parquet").toString()));
        }
        assertThat(verdict.localForm()).isTrue();
        assertThat(verdict.rowsPerPage()).isEqualTo(122_880);
        // The columns' uncompressed size (ids 8 bytes, short strings) plus page index.
        assertThat(verdict.estimatedBytes()).isBetween(2_000_000L, 8_000_000L);

        ToolRunner.Result r = ToolRunner.run("inspect", table.toString(), "--key", "id");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains("a-default.parquet: local form of about")
                .contains("122,880 rows per page (from its page headers) > 16,384")
                .contains("b-small.parquet: read as it is (2,048 rows per page")
                .contains("1 of 2 file(s) would get a local form");
    }
}
