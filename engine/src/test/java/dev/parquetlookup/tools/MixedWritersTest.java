package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.TableSchema;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A directory written by several writers: DuckDB writes {@code optional int64 k} and stores
 * DECIMAL(10,2) as INT64; parquet-java writes {@code required int64 k} and (here) the decimal as
 * FIXED_LEN_BYTE_ARRAY. They are one table for the engine, and {@code inspect} agrees; files that
 * truly disagree are refused by both, naming the files.
 */
class MixedWritersTest {

    @TempDir Path dir;

    /** DuckDB: keys [from, to), v = 'duck-k', amount = k * 0.25. */
    private static void duckDb(Path file, int from, int to) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT i::BIGINT AS k, 'duck-' || i AS v,"
                            + " (i * 0.25)::DECIMAL(10,2) AS amount FROM range("
                            + from
                            + ", "
                            + to
                            + ") t(i) ORDER BY k) TO '"
                            + file
                            + "' (FORMAT PARQUET)");
        }
    }

    /**
     * parquet-java with {@code schema}: keys [from, to) in order, v = 'java-k', amount k * 0.25.
     */
    private static void parquetJava(Path file, String schema, int from, int to) throws IOException {
        MessageType type = MessageTypeParser.parseMessageType(schema);
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .withType(type)
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .build()) {
            for (int k = from; k < to; k++) {
                Group g = groups.newGroup();
                if (type.getType("k")
                        .asPrimitiveType()
                        .getPrimitiveTypeName()
                        .name()
                        .equals("BINARY")) {
                    g.append("k", "key-" + k);
                } else {
                    g.append("k", (long) k);
                }
                g.append("v", "java-" + k);
                byte[] fixed = new byte[5];
                byte[] minimal = BigInteger.valueOf(k * 25L).toByteArray();
                System.arraycopy(minimal, 0, fixed, 5 - minimal.length, minimal.length);
                g.append("amount", Binary.fromConstantByteArray(fixed));
                writer.write(g);
            }
        }
    }

    private static final String JAVA_SCHEMA =
            "message m { required int64 k; optional binary v (STRING);"
                    + " optional fixed_len_byte_array(5) amount (DECIMAL(10,2)); }";

    private static DimensionTable open(Path path) throws IOException {
        return DimensionTable.open(
                TableConfig.builder(path.toString())
                        .sortKey(List.of("k"))
                        .metadataCache(new MetadataCache(16 << 20))
                        .build());
    }

    @Test
    void nullabilityAndDecimalStorageMayDiffer() throws Exception {
        Path table = Files.createDirectories(dir.resolve("t"));
        duckDb(table.resolve("a-duckdb.parquet"), 0, 1_000);
        parquetJava(table.resolve("b-java.parquet"), JAVA_SCHEMA, 1_000, 2_000);

        try (DimensionTable t = open(table)) {
            assertThat(t.columns())
                    .extracting(ColumnSchema::name, ColumnSchema::nullable)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("k", true),
                            org.assertj.core.groups.Tuple.tuple("v", true),
                            org.assertj.core.groups.Tuple.tuple("amount", true));
            LookupPlan plan = t.plan(List.of("k"), List.of("k", "v", "amount"));
            for (long k : new long[] {0, 7, 999, 1_000, 1_500, 1_999}) {
                List<Object[]> rows = t.lookup(plan, new Object[] {k});
                assertThat(rows).as("key %d", k).hasSize(1);
                Object[] row = rows.get(0);
                assertThat(row[0]).isEqualTo(k);
                assertThat(new String((byte[]) row[1], StandardCharsets.UTF_8))
                        .isEqualTo((k < 1_000 ? "duck-" : "java-") + k);
                assertThat(row[2]).isEqualTo(BigDecimal.valueOf(k * 25L, 2));
            }
            assertThat(t.lookup(plan, new Object[] {2_000L})).isEmpty();
        }

        ToolRunner.Result r = ToolRunner.run("inspect", table.toString(), "--key", "k");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .doesNotContain("Schema: the files disagree")
                .contains("Sort order: verified by the engine")
                .containsPattern(
                        "amount +optional fixed_len_byte_array\\(5\\) amount \\(DECIMAL\\(10,2\\)\\)"
                                + " \\| optional int64 amount \\(DECIMAL\\(10,2\\)\\)");

        ToolRunner.Result get =
                ToolRunner.run("get", table.toString(), "--key", "k", "--value", "1500");
        assertThat(get.exitCode()).as("%s", get).isZero();
        assertThat(get.out()).contains("1500\tjava-1500\t375.00");
    }

    @Test
    void columnsReadAsDifferentTypesAreRefusedNamingTheFiles() throws Exception {
        Path table = Files.createDirectories(dir.resolve("t"));
        duckDb(table.resolve("a-duckdb.parquet"), 0, 1_000);
        parquetJava(
                table.resolve("b-java.parquet"),
                JAVA_SCHEMA.replace("required int64 k", "required binary k (STRING)"),
                1_000,
                2_000);
        String a = table.resolve("a-duckdb.parquet").toString();
        String b = table.resolve("b-java.parquet").toString();

        assertThatThrownBy(() -> open(table))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Column 'k' is optional int64 k (INTEGER(64,true)) in ")
                .hasMessageContaining(a)
                .hasMessageContaining(" but required binary k (STRING) in ")
                .hasMessageContaining(b);

        // inspect: no crash, the same difference named file by file, exit status 1.
        ToolRunner.Result r = ToolRunner.run("inspect", table.toString());
        assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
        assertThat(r.out())
                .contains("Schema: the files disagree, so they cannot serve as one table:")
                .containsPattern(
                        "  - Column 'k' is optional int64 k \\(INTEGER\\(64,true\\)\\) in \\S*a-duckdb.parquet but required"
                                + " binary k \\(STRING\\) in \\S*b-java.parquet")
                .contains("The files disagree on 1 column(s)");
        // --key k (DuckDB's file declares no sort key): the key check is the engine's too.
        ToolRunner.Result withKey = ToolRunner.run("inspect", table.toString(), "--key", "k");
        assertThat(withKey.exitCode()).as("%s", withKey).isEqualTo(1);
        assertThat(withKey.out()).contains("Column 'k' is optional int64 k (INTEGER(64,true)) in ");
    }

    @Test
    void decimalKeysStoredDifferentlyDoNotCompareAlike() {
        MessageType int64 =
                MessageTypeParser.parseMessageType(
                        "message m { required int64 k (DECIMAL(10,2)); }");
        MessageType fixed =
                MessageTypeParser.parseMessageType(
                        "message m { optional fixed_len_byte_array(5) k (DECIMAL(10,2)); }");
        List<FileId> files =
                List.of(new FileId("file:/a.parquet", 1, 1), new FileId("file:/b.parquet", 1, 1));
        assertThat(TableSchema.differences(files, List.of(int64, fixed), List.of()))
                .as("as a value column: one logical type")
                .isEmpty();
        assertThat(TableSchema.differences(files, List.of(int64, fixed), List.of("k")))
                .as("as a key: compared differently")
                .extracting(TableSchema.Difference::description)
                .containsExactly(
                        "Column 'k' is required int64 k (DECIMAL(10,2)) in file:/a.parquet but"
                                + " optional fixed_len_byte_array(5) k (DECIMAL(10,2)) in"
                                + " file:/b.parquet");
        List<MessageType> many = new ArrayList<>();
        List<FileId> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            many.add(i == 5 ? fixed : int64);
            ids.add(new FileId("file:/f" + i + ".parquet", 1, 1));
        }
        assertThat(TableSchema.differences(ids, many, List.of("k")).get(0).description())
                .contains(
                        "in file:/f0.parquet, file:/f1.parquet, file:/f2.parquet, and 2 more but");
    }

    /**
     * prepare over files that store one column in different widths (DuckDB writes INTEGER and FLOAT
     * in one file, BIGINT and DOUBLE in another) writes the wider type, every value widened
     * exactly, negative ones included; a lossy mix is still refused.
     */
    @Test
    void prepareWidensIntegersAndFloatsAcrossFiles() throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT (i - 500)::INTEGER AS k, ((i - 500) * 0.5)::FLOAT AS x"
                            + " FROM range(0, 1000) t(i)) TO '"
                            + in.resolve("a-narrow.parquet")
                            + "' (FORMAT PARQUET)");
            st.execute(
                    "COPY (SELECT (i * 10000000000)::BIGINT AS k, (i * 0.25)::DOUBLE AS x"
                            + " FROM range(1, 1001) t(i)) TO '"
                            + in.resolve("b-wide.parquet")
                            + "' (FORMAT PARQUET)");
        }
        Path out = dir.resolve("out");
        ToolRunner.Result r =
                ToolRunner.run("prepare", in.toString(), out.toString(), "--key", "k");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out()).contains("Wrote 2,000 rows");

        try (DimensionTable t = open(out)) {
            assertThat(t.columns())
                    .extracting(ColumnSchema::name, c -> c.type().kind().name())
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("k", "BIGINT"),
                            org.assertj.core.groups.Tuple.tuple("x", "DOUBLE"));
            LookupPlan plan = t.plan(List.of("k"), List.of("k", "x"));
            for (long k : new long[] {-500, -1, 0, 499}) {
                assertThat(t.lookup(plan, new Object[] {k}))
                        .as("narrow key %d", k)
                        .singleElement()
                        .satisfies(row -> assertThat(row).containsExactly(k, k * 0.5));
            }
            for (long i : new long[] {1, 500, 1000}) {
                long k = i * 10_000_000_000L;
                assertThat(t.lookup(plan, new Object[] {k}))
                        .as("wide key %d", k)
                        .singleElement()
                        .satisfies(row -> assertThat(row).containsExactly(k, i * 0.25));
            }
        }

        Path lossy = Files.createDirectories(dir.resolve("lossy"));
        Files.copy(in.resolve("a-narrow.parquet"), lossy.resolve("a.parquet"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT 1000 + i AS k, (i * 0.5)::DECIMAL(10,1) AS x FROM range(0, 10)"
                            + " t(i)) TO '"
                            + lossy.resolve("b.parquet")
                            + "' (FORMAT PARQUET)");
        }
        ToolRunner.Result refused =
                ToolRunner.run(
                        "prepare", lossy.toString(), dir.resolve("o2").toString(), "--key", "k");
        assertThat(refused.exitCode()).as("%s", refused).isNotZero();
        assertThat(refused.err())
                .contains("Column 'x' is")
                .contains("a.parquet")
                .contains("b.parquet");
        assertThat(dir.resolve("o2")).doesNotExist();
    }
}
