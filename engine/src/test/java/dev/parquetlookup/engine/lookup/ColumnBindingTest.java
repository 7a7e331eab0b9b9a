package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ColumnBinding}: two files written by parquet-java under different schemas (a column
 * renamed between them by field id, one added) and a per-file constant (a partition value) leading
 * the sort key: lookups return the table's columns, a constant that differs from the key skips the
 * file without a read.
 */
class ColumnBindingTest {

    @TempDir Path dir;

    private static final Type ID = Types.required(PrimitiveTypeName.INT64).id(1).named("id");
    private static final Type STRING =
            Types.optional(PrimitiveTypeName.BINARY)
                    .as(LogicalTypeAnnotation.stringType())
                    .named("s");

    private void write(Path file, MessageType schema, long from, long to, String prefix)
            throws IOException {
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .withType(schema)
                        .withPageRowCountLimit(50)
                        .build()) {
            for (long id = from; id < to; id++) {
                Group g = groups.newGroup();
                g.add("id", id);
                g.add(schema.getType(1).getName(), prefix + "-" + id);
                if (schema.getFieldCount() > 2) {
                    g.add("score", (int) (id % 7));
                }
                writer.write(g);
            }
        }
    }

    private static ColumnBinding binding(String region) {
        return ColumnBinding.of(
                List.of(
                        ColumnBinding.Column.constant(
                                "region", STRING, region.getBytes(StandardCharsets.UTF_8)),
                        ColumnBinding.Column.stored("id", 1, "id", ID),
                        ColumnBinding.Column.stored("label", 2, "label", STRING),
                        ColumnBinding.Column.stored(
                                "score",
                                3,
                                "score",
                                Types.optional(PrimitiveTypeName.INT32).named("score"))));
    }

    private static List<String> text(List<Object[]> rows) {
        List<String> out = new ArrayList<>();
        for (Object[] r : rows) {
            List<String> parts = new ArrayList<>();
            for (Object v : r) {
                parts.add(
                        v instanceof byte[] b
                                ? new String(b, StandardCharsets.UTF_8)
                                : String.valueOf(v));
            }
            out.add(String.join("|", parts));
        }
        out.sort(null);
        return out;
    }

    @Test
    void columnsAreFoundByFieldIdAbsentOnesAreNullAndConstantsPrune() throws IOException {
        // Before the rename: field 2 is 'name', no field 3.
        write(
                dir.resolve("a.parquet"),
                Types.buildMessage()
                        .addField(ID)
                        .addField(
                                Types.optional(PrimitiveTypeName.BINARY)
                                        .as(LogicalTypeAnnotation.stringType())
                                        .id(2)
                                        .named("name"))
                        .named("a"),
                0,
                1_000,
                "a");
        write(
                dir.resolve("b.parquet"),
                Types.buildMessage()
                        .addField(ID)
                        .addField(
                                Types.optional(PrimitiveTypeName.BINARY)
                                        .as(LogicalTypeAnnotation.stringType())
                                        .id(2)
                                        .named("label"))
                        .addField(Types.optional(PrimitiveTypeName.INT32).id(3).named("score"))
                        .named("b"),
                500,
                1_500,
                "b");
        HadoopFileStore store = HadoopFileStore.create(Map.of());
        Map<FileId, ColumnBinding> bindings = new HashMap<>();
        for (FileId id : store.list(dir.toString())) {
            bindings.put(id, binding(id.path().endsWith("a.parquet") ? "eu" : "us"));
        }
        ReadStatistics statistics = new ReadStatistics();
        try (DimensionTable table =
                DimensionTable.open(
                        TableConfig.builder(dir.toString())
                                .sortKey(List.of("region", "id"))
                                .metadataCache(new MetadataCache(1 << 20))
                                .pageCache(null)
                                .build(),
                        store,
                        statistics,
                        Map.of(),
                        bindings)) {
            assertThat(table.columns().stream().map(ColumnSchema::name).toList())
                    .containsExactly("region", "id", "label", "score");
            assertThat(table.sortKey()).containsExactly("region", "id");
            LookupPlan plan =
                    table.plan(List.of("region", "id"), List.of("id", "label", "score", "region"));
            assertThat(text(table.lookup(plan, new Object[] {"eu", 600L})))
                    .containsExactly("600|a-600|null|eu");
            assertThat(text(table.lookup(plan, new Object[] {"us", 600L})))
                    .containsExactly("600|b-600|5|us");
            assertThat(table.lookup(plan, new Object[] {"eu", 1_200L})).isEmpty();
            long bytes = statistics.bytesRead();
            long requests = statistics.readRequests();
            for (long id = 0; id < 1_500; id += 10) {
                assertThat(table.lookup(plan, new Object[] {"ap", id})).isEmpty();
            }
            assertThat(statistics.bytesRead()).isEqualTo(bytes);
            assertThat(statistics.readRequests()).isEqualTo(requests);
            LookupPlan byRegion = table.plan(List.of("region"), List.of("id"));
            assertThat(table.lookup(byRegion, new Object[] {"us"})).hasSize(1_000);
            assertThat(table.leadingKeySamples()).hasSize(2);
            List<Object[]> scanned = new ArrayList<>();
            table.scan(plan, scanned::add);
            assertThat(scanned).hasSize(2_000);
        }
    }

    @Test
    void aStoredColumnWithoutATypeForItsAbsenceMustBeInTheFile() throws IOException {
        write(
                dir.resolve("a.parquet"),
                Types.buildMessage().addField(ID).addField(STRING).named("a"),
                0,
                10,
                "a");
        HadoopFileStore store = HadoopFileStore.create(Map.of());
        FileId file = store.list(dir.toString()).get(0);
        ColumnBinding binding =
                ColumnBinding.of(
                        List.of(
                                ColumnBinding.Column.stored("id", null, "id", null),
                                ColumnBinding.Column.stored("gone", null, "gone", null)));
        assertThatThrownBy(
                        () ->
                                DimensionTable.open(
                                        TableConfig.builder(dir.toString())
                                                .sortKey(List.of("id"))
                                                .metadataCache(new MetadataCache(1 << 20))
                                                .build(),
                                        store,
                                        new ReadStatistics(),
                                        Map.of(),
                                        Map.of(file, binding)))
                .hasMessageContaining("has no column 'gone'")
                .hasMessageContaining(file.path());
    }
}
