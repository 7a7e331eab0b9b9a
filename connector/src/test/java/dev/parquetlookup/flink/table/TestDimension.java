package dev.parquetlookup.flink.table;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.types.Row;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;

/**
 * A generated dimension table, written as sorted Parquet files by {@link LookupFileWriter} and kept
 * in memory as the reference the SQL results are compared with.
 *
 * <p>Columns in file order: {@code g INT, name STRING, v BIGINT, price DECIMAL(10, 2), ts
 * TIMESTAMP(6), d DATE, flag BOOLEAN, note STRING} (note nullable), sorted by {@code (g, name)}.
 * Keys repeat (several rows per {@code (g, name)} and many per {@code g}), every seventh {@code g}
 * is missing, and pages hold 4 rows and row groups 32, so equal keys cross page, row-group and file
 * boundaries.
 */
public final class TestDimension {

    public static final List<String> NAMES =
            List.of("ann", "bob", "cy", "dee", "eve", "fay", "gus");

    /** The table's DDL columns, declared in another order than the files' to test the mapping. */
    public static final String DDL_COLUMNS =
            "name STRING, g INT, v BIGINT, price DECIMAL(10, 2), ts TIMESTAMP(6), d DATE,"
                    + " flag BOOLEAN, note STRING";

    static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("g", ValueType.of(Kind.INT)),
                    ColumnSpec.required("name", ValueType.of(Kind.STRING)),
                    ColumnSpec.required("v", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("price", new ValueType(Kind.DECIMAL, 10, 2)),
                    ColumnSpec.required("ts", new ValueType(Kind.TIMESTAMP, 6, 0)),
                    ColumnSpec.required("d", ValueType.of(Kind.DATE)),
                    ColumnSpec.required("flag", ValueType.of(Kind.BOOLEAN)),
                    ColumnSpec.optional("note", ValueType.of(Kind.STRING)));

    /** One dimension row, in Flink's external types. */
    public record Dim(
            int g,
            String name,
            long v,
            BigDecimal price,
            LocalDateTime ts,
            LocalDate d,
            boolean flag,
            String note) {

        Object[] values() {
            return new Object[] {g, name, v, price, ts, d, flag, note};
        }

        public Object get(String column) {
            return switch (column) {
                case "g" -> g;
                case "name" -> name;
                case "v" -> v;
                case "price" -> price;
                case "ts" -> ts;
                case "d" -> d;
                case "flag" -> flag;
                case "note" -> note;
                default -> throw new IllegalArgumentException(column);
            };
        }
    }

    /** One probe event; {@code g} or {@code name} may be null. */
    public record Event(long eid, Integer g, String name) {}

    final long seed;
    public final List<Dim> rows;
    public final List<Event> events;

    private TestDimension(long seed, List<Dim> rows, List<Event> events) {
        this.seed = seed;
        this.rows = rows;
        this.events = events;
    }

    public static TestDimension generate(long seed, int groups, int eventCount) {
        Random random = new Random(seed);
        List<Dim> rows = new ArrayList<>();
        long v = 0;
        for (int g = 0; g < groups; g++) {
            if (g % 7 == 3) {
                continue; // a gap: lookups of g fall between pages
            }
            int n = 1 + random.nextInt(6);
            for (int i = 0; i < n; i++) {
                String name = NAMES.get(random.nextInt(NAMES.size()));
                rows.add(
                        new Dim(
                                g,
                                name,
                                v++,
                                BigDecimal.valueOf(random.nextInt(1_000_000) - 500_000, 2),
                                LocalDateTime.of(2024, 1, 1, 0, 0)
                                        .plusSeconds(random.nextInt(1_000_000))
                                        .plusNanos(random.nextInt(1_000_000) * 1000L),
                                LocalDate.of(2000, 1, 1).plusDays(random.nextInt(20_000)),
                                random.nextBoolean(),
                                random.nextInt(4) == 0 ? null : "note-" + random.nextInt(5)));
            }
        }
        rows.sort(Comparator.comparingInt(Dim::g).thenComparing(Dim::name));
        List<Event> events = new ArrayList<>();
        for (long eid = 0; eid < eventCount; eid++) {
            Integer g = random.nextInt(20) == 0 ? null : random.nextInt(groups + 6) - 3;
            String name =
                    random.nextInt(20) == 0
                            ? null
                            : random.nextInt(10) == 0
                                    ? "zed"
                                    : NAMES.get(random.nextInt(NAMES.size()));
            events.add(new Event(eid, g, name));
        }
        return new TestDimension(seed, List.copyOf(rows), List.copyOf(events));
    }

    /** Writes the rows into {@code files} files of consecutive key ranges under {@code dir}. */
    public void write(Path dir, int files) throws IOException {
        WriterOptions options = WriterOptions.builder().rowsPerPage(4).rowsPerRowGroup(32).build();
        int per = (rows.size() + files - 1) / files;
        for (int f = 0; f < files; f++) {
            try (LookupFileWriter writer =
                    LookupFileWriter.open(
                            dir.resolve("part-" + f + ".parquet").toString(),
                            COLUMNS,
                            List.of("g", "name"),
                            options)) {
                for (Dim row :
                        rows.subList(
                                Math.min(f * per, rows.size()),
                                Math.min((f + 1) * per, rows.size()))) {
                    writer.write(row.values());
                }
            }
        }
    }

    /**
     * The expected rows of {@code SELECT e.eid, d.<columns> FROM events e [LEFT] JOIN dim d ON
     * <match>}: one row per matching dimension row, or one row of nulls for a LEFT join miss.
     */
    List<Row> join(boolean left, KeyMatch match, List<String> columns) {
        List<Row> expected = new ArrayList<>();
        for (Event e : events) {
            List<Dim> matches = new ArrayList<>();
            for (Dim d : rows) {
                if (match.matches(e, d)) {
                    matches.add(d);
                }
            }
            if (matches.isEmpty() && left) {
                Object[] fields = new Object[columns.size() + 1];
                fields[0] = e.eid();
                expected.add(Row.of(fields));
            }
            for (Dim d : matches) {
                Object[] fields = new Object[columns.size() + 1];
                fields[0] = e.eid();
                for (int i = 0; i < columns.size(); i++) {
                    fields[i + 1] = d.get(columns.get(i));
                }
                expected.add(Row.of(fields));
            }
        }
        return expected;
    }

    /** Every row projected to {@code columns}. */
    List<Row> project(List<String> columns) {
        List<Row> expected = new ArrayList<>();
        for (Dim d : rows) {
            Object[] fields = new Object[columns.size()];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = d.get(columns.get(i));
            }
            expected.add(Row.of(fields));
        }
        return expected;
    }

    /** A join condition evaluated on the reference, with SQL's null semantics. */
    @FunctionalInterface
    interface KeyMatch {
        boolean matches(Event e, Dim d);

        KeyMatch ON_G = (e, d) -> e.g() != null && e.g() == d.g();
        KeyMatch ON_G_AND_NAME = (e, d) -> ON_G.matches(e, d) && Objects.equals(e.name(), d.name());

        static <T> KeyMatch constant(Function<Dim, T> column, T value) {
            return (e, d) -> value.equals(column.apply(d));
        }

        default KeyMatch and(KeyMatch other) {
            return (e, d) -> matches(e, d) && other.matches(e, d);
        }
    }
}
