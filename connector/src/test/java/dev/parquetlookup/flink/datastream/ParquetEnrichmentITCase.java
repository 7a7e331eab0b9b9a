package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.MissingTypeInfo;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ParquetEnrichment} on a MiniCluster (parallelism 2), every result compared exactly with an
 * in-memory reference: left and inner joins, one output per row and {@code joinAll}, composite and
 * prefix keys (several rows per key, across page boundaries), misses, null keys, a residual key,
 * the row cache, every value type the rows carry, and the errors a user meets first.
 *
 * <p>The dimension: {@code (region STRING, id BIGINT)} sorted, non-unique, 4 rows per page.
 */
class ParquetEnrichmentITCase {

    private static final long SEED = 20_261_130L;
    private static final String[] REGIONS = {"ap", "eu", "sa", "us"};

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir static Path dir;

    private static String path;
    private static final List<Object[]> ROWS = new ArrayList<>();
    private static final List<Order> ORDERS = new ArrayList<>();

    /** An event; public fields and a no-argument constructor make it a Flink POJO. */
    public static final class Order {
        public long orderId;
        public String region;
        public Long customerId;

        public Order() {}

        Order(long orderId, String region, Long customerId) {
            this.orderId = orderId;
            this.region = region;
            this.customerId = customerId;
        }
    }

    /** A POJO output, to check that the output type is inferred from a join lambda. */
    public static final class Enriched {
        public long orderId;
        public String name;
    }

    @BeforeAll
    static void writeDimension() throws Exception {
        Random random = new Random(SEED);
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("region", ValueType.of(Kind.STRING)),
                        ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.optional("name", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("credit", new ValueType(Kind.DECIMAL, 12, 2)),
                        ColumnSpec.optional("born", ValueType.of(Kind.DATE)),
                        ColumnSpec.optional("updated", new ValueType(Kind.TIMESTAMP, 3, 0)),
                        ColumnSpec.optional("seen", new ValueType(Kind.TIMESTAMP_LTZ, 6, 0)),
                        ColumnSpec.optional("vip", ValueType.of(Kind.BOOLEAN)),
                        ColumnSpec.optional("tag", ValueType.of(Kind.BINARY)));
        for (String region : REGIONS) {
            for (long id = 1; id <= 40; id++) {
                if (random.nextInt(5) == 0) {
                    continue; // a gap: lookups of this id miss
                }
                int copies = random.nextInt(6) == 0 ? 1 + random.nextInt(5) : 1;
                for (int c = 0; c < copies; c++) {
                    ROWS.add(
                            new Object[] {
                                region,
                                id,
                                random.nextInt(10) == 0 ? null : region + "-" + id + "-" + c,
                                BigDecimal.valueOf(random.nextInt(1_000_000), 2),
                                LocalDate.of(1950, 1, 1).plusDays(random.nextInt(20_000)),
                                LocalDateTime.of(2026, 1, 1, 0, 0)
                                        .plusSeconds(random.nextInt(1_000_000))
                                        .plusNanos(random.nextInt(1000) * 1_000_000L),
                                Instant.ofEpochSecond(1_700_000_000L + random.nextInt(1_000_000))
                                        .plusNanos(random.nextInt(1_000_000) * 1000L),
                                random.nextBoolean(),
                                new byte[] {(byte) id, (byte) c}
                            });
                }
            }
        }
        path = dir.resolve("customers.parquet").toString();
        WriterOptions options = WriterOptions.builder().rowsPerPage(4).rowsPerRowGroup(32).build();
        try (LookupFileWriter writer =
                LookupFileWriter.open(path, columns, List.of("region", "id"), options)) {
            for (Object[] row : ROWS) {
                writer.write(row);
            }
        }
        for (long o = 0; o < 300; o++) {
            String region = random.nextInt(20) == 0 ? "xx" : REGIONS[random.nextInt(4)];
            Long id = random.nextInt(25) == 0 ? null : (long) (1 + random.nextInt(44));
            ORDERS.add(new Order(o, random.nextInt(40) == 0 ? null : region, id));
        }
    }

    private static List<Object[]> matches(Predicate<Object[]> predicate) {
        return ROWS.stream().filter(predicate).toList();
    }

    private static boolean sameKey(Object[] row, Order order) {
        return order.region != null
                && order.customerId != null
                && row[0].equals(order.region)
                && row[1].equals(order.customerId);
    }

    /** One output line: the order and the row's fields at the given indexes of ROWS' layout. */
    private static String line(Order order, Object[] fields) {
        return order.orderId + " " + Arrays.deepToString(fields);
    }

    /** A left join's output line: the row's fields, or the order's id and null for no row. */
    private static String leftLine(Order order, Row row) {
        return row == null ? order.orderId + " null" : line(order, fields(row));
    }

    /**
     * What a left join of ORDERS gives: a line per matching row of ROWS (its fields at {@code
     * indexes}), or the order's id and null when no row matches.
     */
    private static List<String> leftJoin(BiPredicate<Object[], Order> match, int... indexes) {
        List<String> expected = new ArrayList<>();
        for (Order o : ORDERS) {
            List<Object[]> rows = matches(r -> match.test(r, o));
            if (rows.isEmpty()) {
                expected.add(o.orderId + " null");
            }
            for (Object[] r : rows) {
                expected.add(line(o, pick(r, indexes)));
            }
        }
        return expected;
    }

    private static Object[] pick(Object[] row, int... indexes) {
        Object[] out = new Object[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = row[indexes[i]];
        }
        return out;
    }

    private static Object[] fields(Row row) {
        Object[] out = new Object[row.getArity()];
        for (int i = 0; i < out.length; i++) {
            out[i] = row.getField(i);
        }
        return out;
    }

    private static <OUT> List<OUT> run(ParquetEnrichmentFunction<Order, OUT> function)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<Order> orders = env.fromData(ORDERS);
        DataStream<OUT> enriched =
                AsyncDataStream.unorderedWait(orders, function, 30, TimeUnit.SECONDS, 50);
        List<OUT> out = new ArrayList<>();
        try (CloseableIterator<OUT> it = enriched.executeAndCollect()) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    @Test
    void leftJoinOnTheCompositeKeyGivesOneOutputPerRowAndNullForMisses() throws Exception {
        List<String> actual =
                run(
                        ParquetEnrichment.<Order>from(path)
                                .key(o -> o.region)
                                .key(o -> o.customerId)
                                .columns("name", "credit", "born", "updated", "seen", "vip", "tag")
                                .maxInFlightRequests(3)
                                .join((Order o, Row c) -> leftLine(o, c))
                                .build());

        List<String> expected = leftJoin(ParquetEnrichmentITCase::sameKey, 2, 3, 4, 5, 6, 7, 8);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected).anyMatch(s -> s.endsWith(" null"));
        assertThat(expected.size()).isGreaterThan(ORDERS.size()); // duplicates were joined
    }

    @Test
    void innerJoinOnTheKeyPrefixWithJoinAllGetsEveryRowOfTheRegion() throws Exception {
        List<String> actual =
                run(
                        ParquetEnrichment.<Order>from(path)
                                .key(o -> o.region)
                                .columns("id", "name")
                                .innerJoin()
                                .joinAll(
                                        (Order o, List<Row> rows) -> {
                                            List<String> items = new ArrayList<>();
                                            for (Row r : rows) {
                                                items.add(r.getField("id") + ":" + r.getField(1));
                                            }
                                            items.sort(null);
                                            return o.orderId + " " + items;
                                        })
                                .build());

        List<String> expected = new ArrayList<>();
        for (Order o : ORDERS) {
            List<Object[]> rows = matches(r -> r[0].equals(o.region));
            if (!rows.isEmpty()) {
                List<String> items = new ArrayList<>();
                for (Object[] r : rows) {
                    items.add(r[1] + ":" + r[2]);
                }
                items.sort(null);
                expected.add(o.orderId + " " + items);
            }
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected.size()).isLessThan(ORDERS.size()); // unknown regions were dropped
    }

    @Test
    void leftJoinAllGivesAnEmptyListForMissesAndNullKeys() throws Exception {
        List<String> actual =
                run(
                        ParquetEnrichment.<Order>from(path)
                                .key("region", o -> o.region)
                                .key("id", o -> o.customerId)
                                .columns("name")
                                .joinAll((Order o, List<Row> rows) -> o.orderId + " " + rows.size())
                                .build());

        List<String> expected = new ArrayList<>();
        for (Order o : ORDERS) {
            expected.add(o.orderId + " " + matches(r -> sameKey(r, o)).size());
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aResidualKeyColumnIsComparedOnTheRowsFound() throws Exception {
        // Sort key (region, id); the key (region, name): region is looked up, name compared.
        List<String> actual =
                run(
                        ParquetEnrichment.<Order>from(path)
                                .key("region", o -> o.region)
                                .key("name", o -> o.region + "-" + o.customerId + "-0")
                                .columns("id", "credit")
                                .innerJoin()
                                .join((Order o, Row c) -> line(o, fields(c)))
                                .build());

        List<String> expected = new ArrayList<>();
        for (Order o : ORDERS) {
            for (Object[] r :
                    matches(
                            r ->
                                    r[0].equals(o.region)
                                            && Objects.equals(
                                                    r[2], o.region + "-" + o.customerId + "-0"))) {
                expected.add(line(o, pick(r, 1, 3)));
            }
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected).isNotEmpty();
    }

    @Test
    void theRowCacheGivesTheSameResults() throws Exception {
        List<String> actual =
                run(
                        ParquetEnrichment.<Order>from(path)
                                .key(o -> o.region)
                                .key(o -> o.customerId)
                                .columns("name", "credit")
                                .rowCache(8, Duration.ofMinutes(10))
                                .pageCacheMaxBytes(1 << 20)
                                .join((Order o, Row c) -> leftLine(o, c))
                                .build());

        List<String> expected = leftJoin(ParquetEnrichmentITCase::sameKey, 2, 3);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void theOutputTypeIsInferredFromTheJoinLambda() {
        ParquetEnrichmentFunction<Order, Enriched> function =
                ParquetEnrichment.<Order>from(path)
                        .key(o -> o.region)
                        .join(
                                (Order o, Row c) -> {
                                    Enriched e = new Enriched();
                                    e.orderId = o.orderId;
                                    e.name = c == null ? null : (String) c.getField("name");
                                    return e;
                                })
                        .build();
        TypeInformation<Enriched> type = function.getProducedType();
        assertThat(type).isInstanceOf(PojoTypeInfo.class);
        assertThat(type.getTypeClass()).isEqualTo(Enriched.class);
    }

    @Test
    void aGenericOutputTypeAsksForReturns() {
        ParquetEnrichmentFunction<Order, List<String>> function =
                ParquetEnrichment.<Order>from(path)
                        .key(o -> o.region)
                        .join((Order o, Row c) -> List.of(String.valueOf(o.orderId)))
                        .build();
        assertThat(function.getProducedType()).isInstanceOf(MissingTypeInfo.class);
    }

    @Test
    void aKeyThatIsNotASortKeyPrefixIsServedThroughAKeyIndex() throws Exception {
        // Sort key (region, id); the key (id) alone: a secondary key, several rows per id.
        List<String> actual =
                run(
                        ParquetEnrichment.<Order>from(path)
                                .key("id", o -> o.customerId)
                                .columns("region", "name")
                                .localCacheDir(dir.resolve("local").toString())
                                .join((Order o, Row c) -> leftLine(o, c))
                                .build());

        List<String> expected =
                leftJoin((r, o) -> o.customerId != null && r[1].equals(o.customerId), 0, 2);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected).anyMatch(line -> line.endsWith(" null"));
    }

    @Test
    void aKeyThatIsNotASortKeyPrefixIsRefusedAtBuildWhenAsked() {
        assertThatThrownBy(
                        () ->
                                ParquetEnrichment.<Order>from(path)
                                        .key("id", o -> o.customerId)
                                        .secondaryKeys(ParquetLookupOptions.SecondaryKeys.REFUSE)
                                        .join((Order o, Row c) -> "")
                                        .build())
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("sorted by [region, id]")
                .hasMessageContaining("leading prefix");
    }

    @Test
    void anUnknownColumnIsRefusedAtBuild() {
        assertThatThrownBy(
                        () ->
                                ParquetEnrichment.<Order>from(path)
                                        .key(o -> o.region)
                                        .columns("name", "nmae")
                                        .join((Order o, Row c) -> "")
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column 'nmae' is not in the files")
                .hasMessageContaining("[region, id, name, credit");
    }

    @Test
    void aKeyOfTheWrongJavaTypeFailsTheJobNamingTheColumn() {
        assertThatThrownBy(
                        () ->
                                run(
                                        ParquetEnrichment.<Order>from(path)
                                                .key(o -> o.region)
                                                .key(o -> String.valueOf(o.customerId))
                                                .join((Order o, Row c) -> "")
                                                .build()))
                .hasStackTraceContaining(
                        "Key column 'id' is BIGINT in the files, but the key function returned a"
                                + " java.lang.String")
                .hasStackTraceContaining("return a Long instead");
    }

    @Test
    void theTimeoutHandlerCompletesTheFutureNamingTableAndKey() {
        ParquetEnrichmentFunction<Order, String> function =
                ParquetEnrichment.<Order>from(path)
                        .name("customers")
                        .key(o -> o.region)
                        .key(o -> o.customerId)
                        .join((Order o, Row c) -> "")
                        .build();
        CompletableFuture<Collection<String>> future = new CompletableFuture<>();
        function.timeout(new Order(7, "eu", 12L), new CapturingResultFuture<>(future));
        assertThat(future)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(TimeoutException.class)
                .withMessageContaining("Lookup in table 'customers'")
                .withMessageContaining("[region, id] = [eu, 12]");
    }

    @Test
    void timestampsKeepTheirPrecision() {
        // Sanity of the reference itself: TIMESTAMP(3) and TIMESTAMP_LTZ(6) values as written.
        for (Object[] row : ROWS) {
            assertThat(((LocalDateTime) row[5]).truncatedTo(ChronoUnit.MILLIS)).isEqualTo(row[5]);
            assertThat(((Instant) row[6]).truncatedTo(ChronoUnit.MICROS)).isEqualTo(row[6]);
        }
    }
}
