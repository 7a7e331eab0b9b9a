package dev.parquetlookup.flink.table;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Planning-time errors of the connector, each with its message checked: they surface when a query
 * is planned ({@code explainSql}), before any job runs, so no cluster is needed.
 */
class ParquetLookupValidationITCase {

    @TempDir static Path dir;

    private static Path dimDir;
    private static Path duckFile;

    @BeforeAll
    static void writeFiles() throws Exception {
        dimDir = Files.createDirectory(dir.resolve("dim"));
        TestDimension.generate(5L, 20, 0).write(dimDir, 2);
        duckFile = dir.resolve("nested.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT CAST(i AS BIGINT) AS k, [i, i + 1] AS l FROM range(0, 10) r(i)"
                            + " ORDER BY k) TO '"
                            + duckFile
                            + "' (FORMAT parquet)");
        }
    }

    private static TableEnvironment tEnvWithTable(String columns, String path, String options) {
        TableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        List.of(Row.of(1L, 1, "ann")),
                        new String[] {"eid", "g", "name"},
                        new TypeInformation<?>[] {Types.LONG, Types.INT, Types.STRING});
        tEnv.executeSql(
                "CREATE TABLE dim ("
                        + columns
                        + ") WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + path
                        + "'"
                        + (options.isEmpty() ? "" : ", " + options)
                        + ")");
        return tEnv;
    }

    private static String join(String condition) {
        return "SELECT e.eid, d.v FROM events AS e JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d ON "
                + condition;
    }

    @Test
    void declaredColumnsMissingOrMistypedAreAllListed() {
        TableEnvironment tEnv =
                tEnvWithTable(
                        "g BIGINT, name STRING, v BIGINT, price DECIMAL(8, 2), colour STRING",
                        dimDir.toUri().toString(),
                        "");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining(
                        "Table 'default_catalog.default_database.dim' does not match its Parquet"
                                + " files ("
                                + dimDir.toUri().toString().replaceAll("/$", ""))
                .hasMessageContaining("2 files, first ")
                .hasMessageContaining(
                        "column 'g': Parquet type 'required int32 g' is read as INT, declared SQL"
                                + " type BIGINT; declare it as INT.")
                .hasMessageContaining(
                        "column 'price': Parquet type 'required int64 price (DECIMAL(10,2))' is"
                                + " read as DECIMAL(10, 2), declared SQL type DECIMAL(8, 2); declare"
                                + " it as DECIMAL(10, 2).")
                .hasMessageContaining(
                        "column 'colour' (SQL type STRING) is not in the files; the files have"
                                + " columns [g, name, v, price, ts, d, flag, note]. Remove the"
                                + " column from the table or rename it to a file column.");
    }

    @Test
    void joinKeysThatAreNotASortKeyPrefixAreRejectedAtPlanningWhenSecondaryKeysAreRefused() {
        // By default such a join plans (served through a key index per file on its columns:
        // ParquetLookupSecondaryKeyITCase checks its rows).
        TableEnvironment served =
                tEnvWithTable(TestDimension.DDL_COLUMNS, dimDir.toUri().toString(), "");
        assertThat(served.explainSql(join("e.name = d.name"))).contains("LookupJoin");

        TableEnvironment tEnv =
                tEnvWithTable(
                        TestDimension.DDL_COLUMNS,
                        dimDir.toUri().toString(),
                        "'secondary-keys' = 'refuse'");
        assertThatThrownBy(() -> tEnv.explainSql(join("e.name = d.name")))
                .rootCause()
                .isInstanceOf(ValidationException.class)
                .hasMessageStartingWith(
                        "Lookup join on table 'default_catalog.default_database.dim' uses the key"
                                + " [name], but the files (")
                .hasMessageContaining(
                        ") are sorted by [g, name] and 'secondary-keys' = 'refuse': a lookup join"
                                + " must give the sort key or a leading prefix of it, i.e. an"
                                + " equality condition on 'g' at least. Fix: join on [g, name],"
                                + " set 'secondary-keys' = 'index' (the default: a key index per"
                                + " file on the join's columns), or rewrite the files sorted by"
                                + " [name] (e.g. with the 'prepare' tool; plain Parquet files"
                                + " only: never rewrite a Delta or Iceberg table's data files); if"
                                + " the files are already sorted that way but do not declare it,"
                                + " set 'sort-key' = 'name'.");
    }

    @Test
    void unknownOptionsAreRejected() {
        TableEnvironment tEnv =
                tEnvWithTable(
                        TestDimension.DDL_COLUMNS,
                        dimDir.toUri().toString(),
                        "'lookup.asynch' = 'true', 'hadoop.fs.defaultFS' = 'file:///'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining(
                        "Unsupported options found for 'parquet-lookup'.\n\nUnsupported"
                                + " options:\n\nlookup.asynch\n\nSupported options:");
    }

    @Test
    void aPathWithoutParquetFilesIsRejected() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Files.writeString(empty.resolve("_SUCCESS"), "");
        TableEnvironment tEnv =
                tEnvWithTable(TestDimension.DDL_COLUMNS, empty.toUri().toString(), "");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .hasMessageContaining("holds no Parquet files (hidden and '_' files are skipped)");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .hasStackTraceContaining(
                        "Table 'default_catalog.default_database.dim' cannot serve lookups from"
                                + " 'path' = '"
                                + empty.toUri());

        TableEnvironment missing =
                tEnvWithTable(
                        TestDimension.DDL_COLUMNS, dir.resolve("nowhere").toUri().toString(), "");
        assertThatThrownBy(() -> missing.explainSql("SELECT * FROM dim"))
                .hasStackTraceContaining("does not exist. Check the table's 'path'.");
    }

    @Test
    void aSortKeyContradictingTheFilesIsRejected() {
        TableEnvironment tEnv =
                tEnvWithTable(
                        TestDimension.DDL_COLUMNS, dimDir.toUri().toString(), "'sort-key' = 'v'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining(
                        "Table 'default_catalog.default_database.dim' cannot serve lookups from")
                .rootCause()
                .hasMessageEndingWith(
                        " declares sort key [g, name] but the table declares [v]. Set 'sort-key'"
                                + " to g,name (or a leading part of it), or remove the option.");
    }

    @Test
    void filesWithoutDeclaredOrderNeedTheSortKeyOption() {
        TableEnvironment tEnv = tEnvWithTable("k BIGINT", duckFile.toUri().toString(), "");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageContaining(
                        "nested.parquet does not declare its sort order (no sorting_columns and no"
                                + " 'parquet-lookup.sort-key' entry; written by DuckDB")
                .hasMessageEndingWith(
                        "Name the columns it is sorted by with the 'sort-key' option, or rewrite"
                                + " it with 'prepare' (plain Parquet files only: never rewrite a"
                                + " Delta or Iceberg table's data files).");
    }

    @Test
    void nestedColumnsMustBeDeclaredWithTheirElementTypes() {
        TableEnvironment tEnv =
                tEnvWithTable(
                        "k BIGINT, l ARRAY<STRING>",
                        duckFile.toUri().toString(),
                        "'sort-key' = 'k'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .hasMessageContaining(
                        "column 'l': Parquet type 'required group l (LIST) { repeated group list {"
                                + " optional int64 element (INTEGER(64,true)); } }'")
                .hasMessageContaining(
                        "is read as ARRAY<BIGINT>, declared SQL type ARRAY<STRING>;"
                                + " declare it as ARRAY<BIGINT>.");
        TableEnvironment fits =
                tEnvWithTable(
                        "k BIGINT, l ARRAY<BIGINT>",
                        duckFile.toUri().toString(),
                        "'sort-key' = 'k'");
        assertThatCode(() -> fits.explainSql("SELECT * FROM dim")).doesNotThrowAnyException();
    }

    @Test
    void badOptionValuesAreRejected() {
        TableEnvironment tEnv =
                tEnvWithTable(
                        TestDimension.DDL_COLUMNS,
                        dimDir.toUri().toString(),
                        "'lookup.max-in-flight-requests' = '0'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .hasMessage(
                        "Table 'default_catalog.default_database.dim':"
                                + " 'lookup.max-in-flight-requests' must be at least 1, got 0.");
        // A removed option is still accepted (with a warning in the log), whatever its value.
        TableEnvironment removed =
                tEnvWithTable(
                        TestDimension.DDL_COLUMNS,
                        dimDir.toUri().toString(),
                        "'lookup.async.threads' = '0'");
        assertThatCode(() -> removed.explainSql("SELECT * FROM dim")).doesNotThrowAnyException();
    }
}
