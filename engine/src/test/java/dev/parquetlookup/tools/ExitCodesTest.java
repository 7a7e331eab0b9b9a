package dev.parquetlookup.tools;

import dev.parquetlookup.engine.source.TableRootsTest;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command answers every class of error with the same exit code (docs/troubleshooting.md,
 * "Exit codes"): 0 done, 1 no row (get) or not sorted (inspect), 2 a usage error whose fix is an
 * argument or a flag, 3 an input that cannot be read or work that failed. Found by a user: a {@code
 * --key} naming no column was 2 in inspect and prepare but 3 in get; a nested {@code --key} and a
 * file without a declared order and no {@code --key} were 3.
 */
class ExitCodesTest {

    @TempDir static Path dir;

    static Path sorted;
    static Path foreign;
    static Path nested;
    static Path notParquet;
    static Path delta;

    @BeforeAll
    static void files() throws Exception {
        sorted = dir.resolve("sorted.parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        sorted.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.optional("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.builder().build())) {
            for (long k = 1; k <= 100; k++) {
                w.write(new Object[] {k, "v" + k});
            }
        }
        foreign = dir.resolve("foreign.parquet");
        ForeignFiles.write(foreign, LongStream.rangeClosed(1, 100).boxed().toList());
        nested = dir.resolve("nested.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT i::BIGINT AS k, {'city': 'c' || i} AS addr FROM range(10) t(i))"
                            + " TO '"
                            + nested
                            + "' (FORMAT parquet)");
        }
        notParquet = dir.resolve("notes.parquet");
        Files.writeString(notParquet, "id,name\n1,a\n");
        delta = TableRootsTest.deltaRootWithARemovedFile(dir);
    }

    record Case(String what, int exit, String says, List<String> args) {
        @Override
        public String toString() {
            return args.get(0) + ": " + what + " -> " + exit;
        }
    }

    static Case c(String what, int exit, String says, String... args) {
        return new Case(what, exit, says, List.of(args));
    }

    static Stream<Case> cases() {
        String missing = dir.resolve("missing").toString();
        String out = dir.resolve("out").toString();
        String s = sorted.toString();
        String f = foreign.toString();
        String n = nested.toString();
        String x = notParquet.toString();
        String d = delta.toString();
        return Stream.of(
                c("found", 0, "v3", "get", s, "--value", "3"),
                c("no row", 1, "", "get", s, "--value", "1000"),
                c("missing path", 2, "does not exist", "get", missing, "--value", "1"),
                c(
                        "--key names no column",
                        2,
                        "no column 'nope'",
                        "get",
                        s,
                        "--key",
                        "nope",
                        "--value",
                        "1"),
                c("nested --key", 2, "nested", "get", n, "--key", "addr", "--value", "1"),
                c("no declared order, no --key", 2, "--key", "get", f, "--value", "1"),
                c("bad --value", 2, "--value", "get", s, "--value", "abc"),
                c("table root as files", 2, "--format delta", "get", d, "--value", "1"),
                c(
                        "not Parquet",
                        3,
                        "not a readable Parquet file",
                        "get",
                        x,
                        "--key",
                        "k",
                        "--value",
                        "1"),
                c("sorted", 0, "", "inspect", s),
                c("missing path", 2, "does not exist", "inspect", missing),
                c("--key names no column", 2, "no column 'nope'", "inspect", s, "--key", "nope"),
                c("nested --key", 2, "nested", "inspect", n, "--key", "addr"),
                c("table root as files", 2, "--format delta", "inspect", d),
                c("not Parquet", 3, "not a readable Parquet file", "inspect", x),
                c("missing input", 2, "does not exist", "prepare", missing, out, "--key", "k"),
                c("--key names no column", 2, "no such column", "prepare", f, out, "--key", "nope"),
                c("nested --key", 2, "nested", "prepare", n, out, "--key", "addr"),
                c(
                        "table root as input",
                        2,
                        "plain Parquet files only",
                        "prepare",
                        d,
                        out,
                        "--key",
                        "k"),
                c(
                        "not Parquet",
                        3,
                        "not a readable Parquet file",
                        "prepare",
                        x,
                        out,
                        "--key",
                        "k"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyCommandGivesTheDocumentedExitCode(Case c) {
        ToolRunner.Result r = ToolRunner.run(c.args().toArray(new String[0]));
        assertThat(r.exitCode()).as("%s\n%s", c, r).isEqualTo(c.exit());
        String said = c.exit() == 0 || c.exit() == 1 ? r.out() : r.err();
        assertThat(said).as("%s\n%s", c, r).contains(c.says());
        assertThat(r.err()).as("no stack trace").doesNotContain("\tat ");
    }
}
