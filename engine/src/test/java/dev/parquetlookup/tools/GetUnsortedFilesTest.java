package dev.parquetlookup.tools;

import dev.parquetlookup.testing.DuckDbExtension;

import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code get} on files not sorted by the key (rows shuffled over several row groups), written by
 * parquet-java and by DuckDB: answered through a key index, every answer equal to DuckDB's own
 * reading of the file (keys appear twice; hits and misses).
 */
class GetUnsortedFilesTest {

    private static final long SEED = 27L;
    private static final int ROWS = 12_000;
    private static final int KEYS = ROWS / 2; // every key twice

    @TempDir Path dir;

    @RegisterExtension static final DuckDbExtension duck = new DuckDbExtension();

    @Test
    void parquetJavaFileWithShuffledRows() throws Exception {
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        "message m { required int64 id; required binary v (STRING); }");
        List<Integer> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add(i);
        }
        Collections.shuffle(rows, new Random(SEED));
        Path file = dir.resolve("parquet-java.parquet");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<org.apache.parquet.example.data.Group> writer =
                ExampleParquetWriter.builder(new LocalOutputFile(file))
                        .withType(schema)
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .withRowGroupRowCountLimit(2_500)
                        .withPageRowCountLimit(500)
                        .build()) {
            for (int i : rows) {
                writer.write(
                        groups.newGroup().append("id", (long) (i % KEYS)).append("v", "v" + i));
            }
        }
        assertGetAnswersLikeDuckDb(file);
    }

    @Test
    void duckDbFileWithShuffledRows() throws Exception {
        Path file = dir.resolve("duckdb.parquet");
        duck.writeParquet(
                "SELECT (i % "
                        + KEYS
                        + ")::BIGINT AS id, 'v' || i AS v FROM range("
                        + ROWS
                        + ") t(i) ORDER BY hash(i + "
                        + SEED
                        + ")",
                file,
                "ROW_GROUP_SIZE 2048");
        assertGetAnswersLikeDuckDb(file);
    }

    private static void assertGetAnswersLikeDuckDb(Path file) throws SQLException {
        try (PreparedStatement groups =
                        duck.prepareStatement(
                                "SELECT count(*) FROM parquet_metadata('"
                                        + file
                                        + "') WHERE column_id = 0");
                ResultSet rs = groups.executeQuery()) {
            rs.next();
            assertThat(rs.getLong(1)).as("row groups").isGreaterThan(3);
        }
        Random random = new Random(SEED);
        List<Long> probes = new ArrayList<>(List.of(0L, KEYS - 1L, (long) KEYS, -1L));
        for (int i = 0; i < 12; i++) {
            probes.add((long) random.nextInt(KEYS + 100));
        }
        int hits = 0;
        for (long key : probes) {
            List<String> expected = duckAnswer(file, key);
            ToolRunner.Result r =
                    ToolRunner.run(
                            "get", file.toString(), "--key", "id", "--value", Long.toString(key));
            assertThat(r.exitCode()).as("%s", r).isEqualTo(expected.isEmpty() ? 1 : 0);
            String[] lines = r.out().split("\n");
            List<String> got = new ArrayList<>();
            if (!expected.isEmpty()) {
                assertThat(lines[0]).isEqualTo("id\tv");
                got.addAll(Arrays.asList(lines).subList(1, 1 + expected.size()));
                Collections.sort(got);
                hits++;
            }
            assertThat(got).as("key %d (seed %d)", key, SEED).isEqualTo(expected);
            assertThat(r.out()).contains(expected.size() + " row(s) for (id) = (" + key + ")");
        }
        assertThat(hits).isGreaterThan(8);
    }

    /** DuckDB's rows for {@code key}, as get prints them, sorted. */
    private static List<String> duckAnswer(Path file, long key) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (PreparedStatement ps =
                duck.prepareStatement(
                        "SELECT id, v FROM read_parquet('" + file + "') WHERE id = ? ORDER BY v")) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getLong(1) + "\t" + rs.getString(2));
                }
            }
        }
        Collections.sort(rows);
        return rows;
    }
}
