package dev.parquetlookup.tools;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GetCommandTest {

    @TempDir Path dir;

    private Path table;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("customer", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("day", ValueType.of(Kind.DATE)),
                    ColumnSpec.optional("status", ValueType.of(Kind.STRING)),
                    ColumnSpec.optional("total", new ValueType(Kind.DECIMAL, 10, 2)),
                    ColumnSpec.optional("at", new ValueType(Kind.TIMESTAMP, 3, 0)));

    /** Customers 0..2999, two days each; status null for customer % 5 == 0. */
    @BeforeEach
    void writeTable() throws IOException {
        table = dir.resolve("orders");
        Files.createDirectories(table);
        for (int part = 0; part < 2; part++) {
            try (LookupFileWriter w =
                    LookupFileWriter.open(
                            table.resolve("part-" + part + ".parquet").toString(),
                            COLUMNS,
                            List.of("customer", "day"),
                            WriterOptions.builder().rowsPerPage(256).build())) {
                for (long c = part * 1_500L; c < (part + 1) * 1_500L; c++) {
                    for (int day = 19_000; day < 19_002; day++) {
                        w.write(
                                new Object[] {
                                    c,
                                    day,
                                    c % 5 == 0 ? null : "s" + c,
                                    BigDecimal.valueOf(c * 100 + day - 19_000, 2),
                                    new TimestampValue(day * 86_400_000L + c, 0)
                                });
                    }
                }
            }
        }
    }

    @Test
    void looksUpAKeyAndReportsTheCost() {
        ToolRunner.Result r = ToolRunner.run("get", table.toString(), "--value", "1234");
        assertThat(r.exitCode()).as("%s", r).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines[0]).isEqualTo("customer\tday\tstatus\ttotal\tat");
        assertThat(lines[1]).isEqualTo("1234\t2022-01-08\ts1234\t1234.00\t2022-01-08T00:00:01.234");
        assertThat(lines[2]).isEqualTo("1234\t2022-01-09\ts1234\t1234.01\t2022-01-09T00:00:01.234");
        assertThat(lines[3])
                .matches(
                        "2 row\\(s\\) for \\(customer\\) = \\(1234\\) in [0-9.]+ m?s: [0-9,]+ bytes"
                                + " in \\d+ read\\(s\\)");
        assertThat(lines[4])
                .matches(
                        "Opening 2 file\\(s\\) took [0-9.]+ m?s: [0-9,]+ bytes of metadata in \\d+"
                                + " read\\(s\\), cached for later lookups \\(this command's time"
                                + " includes starting Hadoop's file system in a fresh JVM; a"
                                + " running job opens a file in milliseconds\\)");
    }

    @Test
    void compositeKeyProjectionNullsAndMisses() {
        ToolRunner.Result r =
                ToolRunner.run(
                        "get",
                        table.toString(),
                        "--value",
                        "2000",
                        "--value",
                        "2022-01-09",
                        "--columns",
                        "status,total");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .startsWith(
                        "status\ttotal\nNULL\t2000.01\n1 row(s) for (customer, day) = (2000,"
                                + " 2022-01-09) in ");

        ToolRunner.Result miss = ToolRunner.run("get", table.toString(), "--value", "99999");
        assertThat(miss.exitCode()).as("no row: exit status 1").isEqualTo(1);
        assertThat(miss.out()).contains("0 row(s) for (customer) = (99999) in ");
    }

    @Test
    void otherColumnsThanTheSortKeyAreLookedUpThroughAKeyIndex() {
        ToolRunner.Result r =
                ToolRunner.run(
                        "get",
                        table.toString(),
                        "--key",
                        "status",
                        "--value",
                        "s1234",
                        "--columns",
                        "customer,total");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .startsWith(
                        "customer\ttotal\n1234\t1234.00\n1234\t1234.01\n2 row(s) for (status) ="
                                + " (s1234) in ");

        ToolRunner.Result composite =
                ToolRunner.run(
                        "get",
                        table.toString(),
                        "--key",
                        "day,total",
                        "--value",
                        "2022-01-09",
                        "--value",
                        "2000.01",
                        "--columns",
                        "customer");
        assertThat(composite.exitCode()).as("%s", composite).isZero();
        assertThat(composite.out())
                .startsWith("customer\n2000\n1 row(s) for (day, total) = (2022-01-09, 2000.01)");

        ToolRunner.Result miss =
                ToolRunner.run("get", table.toString(), "--key", "status", "--value", "s99999");
        assertThat(miss.exitCode()).as("no row: exit status 1").isEqualTo(1);
    }

    @Test
    void badKeysAndColumnsExitWithCodeTwo() throws IOException {
        ToolRunner.Result notANumber = ToolRunner.run("get", table.toString(), "--value", "abc");
        assertThat(notANumber.exitCode()).isEqualTo(2);
        assertThat(notANumber.err())
                .contains(
                        "--value for column 'customer': 'abc' is not a BIGINT value (an integer such"
                                + " as 42)")
                .contains("Run 'parquet-lookup get --help'");

        ToolRunner.Result tooMany =
                ToolRunner.run(
                        "get",
                        table.toString(),
                        "--value",
                        "1",
                        "--value",
                        "2022-01-01",
                        "--value",
                        "x");
        assertThat(tooMany.exitCode()).isEqualTo(2);
        assertThat(tooMany.err())
                .contains("got 3 --value values but the sort key has 2 column(s): (customer, day)");

        ToolRunner.Result badColumn =
                ToolRunner.run("get", table.toString(), "--value", "1", "--columns", "nope");
        assertThat(badColumn.exitCode()).isEqualTo(2);
        assertThat(badColumn.err()).contains("--columns names 'nope', which is not a column");

        ToolRunner.Result noKey = ToolRunner.run("get", table.toString());
        assertThat(noKey.exitCode()).isEqualTo(2);
        assertThat(noKey.err()).contains("give the key value to look up with --value");

        ToolRunner.Result oldForm = ToolRunner.run("get", table.toString(), "--key", "customer");
        assertThat(oldForm.exitCode()).isEqualTo(2);
        assertThat(oldForm.err())
                .contains("give the key value to look up with --value")
                .contains("--key names the key column, here customer");

        ToolRunner.Result notAColumn =
                ToolRunner.run("get", table.toString(), "--key", "nope", "--value", "1");
        // A --key naming no column is fixed by the flag: 2, as in inspect and prepare.
        assertThat(notAColumn.exitCode()).as("%s", notAColumn).isEqualTo(2);
        assertThat(notAColumn.err())
                .contains("has no column 'nope'")
                .contains("Fix --key")
                .doesNotContain("'sort-key'");

        ToolRunner.Result missing =
                ToolRunner.run("get", dir.resolve("none").toString(), "--value", "1");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("PATH " + dir.resolve("none") + " does not exist");

        Path empty = dir.resolve("empty");
        Files.createDirectories(empty);
        ToolRunner.Result nothing = ToolRunner.run("get", empty.toString(), "--value", "1");
        assertThat(nothing.exitCode()).as("%s", nothing).isEqualTo(2);
        assertThat(nothing.err()).contains("holds no files");
    }
}
