package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.Widening;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One table over files that store a column in different physical types: parquet-java writes {@code
 * required int32 id} and {@code float score}, DuckDB writes {@code optional int64 id} and {@code
 * double score}. The table serves BIGINT and DOUBLE, with keys compared across files as longs, and
 * every lookup equals DuckDB's own answer over both files ({@code union_by_name} widens the same
 * way). Lossy mixes are refused naming the column, both types and the files.
 */
class WideningTest {

    @TempDir Path dir;

    /** parquet-java: even ids in [0, 2 * n), score = id / 8, v = id % 1000 as int32. */
    private static void parquetJava(Path file, String schema, int n) throws IOException {
        MessageType type = MessageTypeParser.parseMessageType(schema);
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .withType(type)
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .withPageRowCountLimit(500)
                        .withRowGroupRowCountLimit(3000)
                        .withPageWriteChecksumEnabled(false)
                        .build()) {
            for (int i = 0; i < n; i++) {
                int id = 2 * i;
                Group g = groups.newGroup();
                append(g, type, "id", id);
                append(g, type, "score", id / 8.0);
                append(g, type, "v", id % 1000);
                writer.write(g);
            }
        }
    }

    /** Appends {@code value} in the column's physical type. */
    private static void append(Group g, MessageType type, String column, double value) {
        switch (type.getType(column).asPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> g.append(column, (int) value);
            case INT64 -> g.append(column, (long) value);
            case FLOAT -> g.append(column, (float) value);
            case DOUBLE -> g.append(column, value);
            default -> throw new IllegalArgumentException(column);
        }
    }

    private static final String JAVA_SCHEMA =
            "message m { required int32 id; required float score; required int32 v; }";

    /**
     * DuckDB: ids from {@code i * 3} (overlapping the parquet-java file's range, and beyond the int
     * range for the last rows), every 50th row NULL.
     */
    private static void duckDb(Connection duck, Path file) throws SQLException {
        try (Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT CASE WHEN i % 3000 = 2999 THEN 3000000000 + i ELSE i * 3 END::BIGINT"
                            + " AS id, (i * 0.125)::DOUBLE AS score, CASE WHEN i % 50 = 0 THEN NULL"
                            + " ELSE i % 1000 END::BIGINT AS v FROM range(9000) t(i) ORDER BY id)"
                            + " TO '"
                            + file
                            + "' (FORMAT PARQUET, ROW_GROUP_SIZE 2048)");
        }
    }

    @Test
    void int32AndInt64FilesAreOneBigintTableMatchingDuckDb() throws Exception {
        Path narrow = dir.resolve("a-java.parquet");
        Path wide = dir.resolve("b-duckdb.parquet");
        parquetJava(narrow, JAVA_SCHEMA, 10_000);
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:")) {
            duckDb(duck, wide);
            try (DimensionTable table =
                    DimensionTable.open(
                            TableConfig.builder(dir.toString()).sortKey(List.of("id")).build())) {
                assertThat(table.columns())
                        .extracting(c -> c.name() + " " + c.type())
                        .containsExactly("id BIGINT", "score DOUBLE", "v BIGINT");
                assertThat(table.leadingKeySamples()).allMatch(k -> k instanceof Long);
                LookupPlan plan = table.plan(List.of("id"), List.of("id", "score", "v"));
                List<Long> probes = new ArrayList<>();
                Random r = new Random(15);
                for (int n = 0; n < 300; n++) {
                    probes.add((long) r.nextInt(30_000) - 5);
                }
                probes.addAll(List.of(3_000_002_999L, 3_000_005_999L, 2_147_483_648L, 0L));
                int hits = 0;
                try (PreparedStatement q =
                        duck.prepareStatement(
                                "SELECT id, score, v FROM read_parquet(['"
                                        + narrow
                                        + "', '"
                                        + wide
                                        + "'], union_by_name = true, filename = true,"
                                        + " file_row_number = true) WHERE id = ? ORDER BY"
                                        + " filename, file_row_number")) {
                    for (long key : probes) {
                        q.setLong(1, key);
                        List<Object[]> expected = new ArrayList<>();
                        try (ResultSet rs = q.executeQuery()) {
                            while (rs.next()) {
                                long v = rs.getLong(3);
                                Long nullableV = rs.wasNull() ? null : v;
                                expected.add(
                                        new Object[] {rs.getLong(1), rs.getDouble(2), nullableV});
                            }
                        }
                        List<Object[]> actual = table.lookup(plan, new Object[] {key});
                        if (!Values.rowListsEqual(expected, actual)) {
                            throw new AssertionError(
                                    "id = "
                                            + key
                                            + "\n  DuckDB "
                                            + Values.describe(expected, 8)
                                            + "\n  engine "
                                            + Values.describe(actual, 8));
                        }
                        hits += expected.isEmpty() ? 0 : 1;
                        if (expected.size() > 1) {
                            hits += 1000; // a key in both files
                        }
                    }
                }
                assertThat(hits % 1000).as("keys found").isGreaterThan(100);
                assertThat(hits / 1000).as("keys found in both files").isGreaterThan(10);
                // An int key for a BIGINT column is accepted too (any Number of the right kind).
                assertThat(table.lookup(plan, new Object[] {6})).hasSize(2);
            }
        }
    }

    @Test
    void lossyMixesAreRefusedNamingColumnTypesAndFiles() throws Exception {
        parquetJava(dir.resolve("a.parquet"), JAVA_SCHEMA, 100);
        // score as DOUBLE is fine, v as DOUBLE is not (BIGINT values do not all fit a double).
        parquetJava(
                dir.resolve("b.parquet"),
                "message m { required int64 id; required double score; required double v; }",
                100);
        assertThatThrownBy(
                        () ->
                                DimensionTable.open(
                                        TableConfig.builder(dir.toString())
                                                .sortKey(List.of("id"))
                                                .build()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Column 'v'")
                .hasMessageContaining("required int32 v")
                .hasMessageContaining("required double v")
                .hasMessageContaining("a.parquet")
                .hasMessageContaining("b.parquet")
                .hasMessageContaining("rewrite the odd files");
    }

    @Test
    void keysThatCompareDifferentlyAreRefused() throws Exception {
        parquetJava(dir.resolve("a.parquet"), JAVA_SCHEMA, 100);
        parquetJava(
                dir.resolve("b.parquet"),
                "message m { required int32 id (DECIMAL(9, 0)); required float score;"
                        + " required int32 v; }",
                100);
        assertThatThrownBy(
                        () ->
                                DimensionTable.open(
                                        TableConfig.builder(dir.toString())
                                                .sortKey(List.of("id"))
                                                .build()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Column 'id'")
                .hasMessageContaining("b.parquet");
    }

    @Test
    void commonTypes() {
        ValueType tiny = ValueType.of(ValueType.Kind.TINYINT);
        ValueType integer = ValueType.of(ValueType.Kind.INT);
        ValueType bigint = ValueType.of(ValueType.Kind.BIGINT);
        ValueType real = ValueType.of(ValueType.Kind.FLOAT);
        ValueType dbl = ValueType.of(ValueType.Kind.DOUBLE);
        assertThat(Widening.common(integer, bigint)).isEqualTo(bigint);
        assertThat(Widening.common(tiny, integer)).isEqualTo(integer);
        assertThat(Widening.common(real, dbl)).isEqualTo(dbl);
        assertThat(Widening.common(bigint, dbl)).isNull();
        assertThat(Widening.common(integer, real)).isNull();
        assertThat(
                        Widening.common(
                                new ValueType(ValueType.Kind.DECIMAL, 9, 2),
                                new ValueType(ValueType.Kind.DECIMAL, 18, 2)))
                .isEqualTo(new ValueType(ValueType.Kind.DECIMAL, 18, 2));
        assertThat(
                        Widening.common(
                                new ValueType(ValueType.Kind.DECIMAL, 9, 2),
                                new ValueType(ValueType.Kind.DECIMAL, 18, 3)))
                .isNull();
        assertThat(Widening.widen(42, bigint)).isEqualTo(42L);
        assertThat(Widening.widen(1.5f, dbl)).isEqualTo(1.5d);
        assertThat(Widening.widen(7, integer)).isEqualTo(7);
        assertThat(Widening.widen(null, bigint)).isNull();
    }
}
