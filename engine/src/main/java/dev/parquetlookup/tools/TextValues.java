package dev.parquetlookup.tools;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text to values and types: CSV fields, {@code get --key} arguments and {@code --schema}
 * declarations. Values come out in the engine's representation (see {@link ValueType}).
 */
final class TextValues {

    private static final Pattern COLUMN =
            Pattern.compile(
                    "\\s*([A-Za-z_][A-Za-z0-9_.$-]*|`[^`]+`|\"[^\"]+\")\\s+([A-Za-z_]+)"
                            + "\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?"
                            + "\\s*(NOT\\s+NULL)?\\s*",
                    Pattern.CASE_INSENSITIVE);

    static final String TYPES =
            "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p,s), STRING,"
                    + " BINARY, DATE, TIME(p), TIMESTAMP(p), TIMESTAMP_LTZ(p)";

    private TextValues() {}

    /**
     * Parses {@code "k BIGINT NOT NULL, v STRING, p DECIMAL(10,2)"}: columns are nullable unless
     * marked NOT NULL.
     */
    static List<ColumnSpec> parseSchema(String text) {
        List<ColumnSpec> columns = new ArrayList<>();
        for (String part : splitTopLevel(text)) {
            Matcher m = COLUMN.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException(
                        "cannot read column declaration '"
                                + part.trim()
                                + "': write 'name TYPE [NOT NULL]', e.g. 'k BIGINT NOT NULL, v"
                                + " STRING'");
            }
            String name = m.group(1);
            if (name.startsWith("`") || name.startsWith("\"")) {
                name = name.substring(1, name.length() - 1);
            }
            Integer p = m.group(3) == null ? null : Integer.parseInt(m.group(3));
            Integer s = m.group(4) == null ? null : Integer.parseInt(m.group(4));
            ValueType type = type(name, m.group(2), p, s);
            columns.add(new ColumnSpec(name, type, m.group(5) == null, null, null));
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("the schema declares no column");
        }
        return columns;
    }

    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        if (!text.substring(start).isBlank()) {
            parts.add(text.substring(start));
        }
        return parts;
    }

    private static ValueType type(String column, String name, Integer p, Integer s) {
        String n = name.toUpperCase(Locale.ROOT);
        return switch (n) {
            case "BOOLEAN", "BOOL" -> ValueType.of(Kind.BOOLEAN);
            case "TINYINT" -> ValueType.of(Kind.TINYINT);
            case "SMALLINT" -> ValueType.of(Kind.SMALLINT);
            case "INT", "INTEGER" -> ValueType.of(Kind.INT);
            case "BIGINT", "LONG" -> ValueType.of(Kind.BIGINT);
            case "FLOAT", "REAL" -> ValueType.of(Kind.FLOAT);
            case "DOUBLE" -> ValueType.of(Kind.DOUBLE);
            case "DECIMAL", "NUMERIC" ->
                    new ValueType(Kind.DECIMAL, p == null ? 10 : p, s == null ? 0 : s);
            case "STRING", "VARCHAR", "TEXT", "CHAR" -> ValueType.of(Kind.STRING);
            case "BINARY", "VARBINARY", "BYTES" -> ValueType.of(Kind.BINARY);
            case "DATE" -> ValueType.of(Kind.DATE);
            case "TIME" -> new ValueType(Kind.TIME, p == null ? 3 : p, 0);
            case "TIMESTAMP" -> new ValueType(Kind.TIMESTAMP, p == null ? 6 : p, 0);
            case "TIMESTAMP_LTZ" -> new ValueType(Kind.TIMESTAMP_LTZ, p == null ? 6 : p, 0);
            default ->
                    throw new IllegalArgumentException(
                            "unknown type '"
                                    + name
                                    + "' for column "
                                    + column
                                    + ": use one of "
                                    + TYPES);
        };
    }

    /**
     * Parses one value of {@code type}. STRING stays a {@code String}; BINARY is hex ({@code 0x}
     * optional); DATE, TIME, TIMESTAMP are ISO-8601 ({@code 2024-05-01}, {@code 12:30:00}, {@code
     * 2024-05-01 12:30:00.123} or with {@code T}); TIMESTAMP_LTZ takes an instant with {@code Z} or
     * an offset, or a local time read as UTC.
     *
     * @throws IllegalArgumentException saying what form was expected
     */
    static Object parse(ValueType type, String text) {
        String t = text.trim();
        try {
            return switch (type.kind()) {
                case BOOLEAN -> {
                    if (t.equalsIgnoreCase("true")) {
                        yield Boolean.TRUE;
                    }
                    if (t.equalsIgnoreCase("false")) {
                        yield Boolean.FALSE;
                    }
                    throw new IllegalArgumentException("expected true or false");
                }
                case TINYINT, SMALLINT, INT -> Integer.parseInt(t);
                case BIGINT -> Long.parseLong(t);
                case FLOAT -> Float.parseFloat(t);
                case DOUBLE -> Double.parseDouble(t);
                case DECIMAL -> new BigDecimal(t);
                case STRING -> text;
                case BINARY ->
                        HexFormat.of()
                                .parseHex(
                                        t.startsWith("0x") || t.startsWith("0X")
                                                ? t.substring(2)
                                                : t);
                case DATE -> Math.toIntExact(LocalDate.parse(t).toEpochDay());
                case TIME -> LocalTime.parse(t).toNanoOfDay();
                case TIMESTAMP ->
                        TimestampValue.of(
                                LocalDateTime.parse(t.replace(' ', 'T')).toInstant(ZoneOffset.UTC));
                case TIMESTAMP_LTZ -> TimestampValue.of(instant(t));
                case ARRAY, MAP, ROW, NESTED, UNSUPPORTED ->
                        throw new IllegalArgumentException(
                                "values of type " + type + " cannot be given as text");
            };
        } catch (IllegalArgumentException | DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a " + type + " value (" + example(type) + ")", e);
        }
    }

    private static Instant instant(String t) {
        String iso = t.replace(' ', 'T');
        if (iso.endsWith("Z") || iso.endsWith("z")) {
            return Instant.parse(iso.toUpperCase(Locale.ROOT));
        } else if (iso.matches(".*[+-]\\d\\d:?\\d\\d$") && iso.indexOf('T') > 0) {
            return OffsetDateTime.parse(iso).toInstant();
        }
        return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC);
    }

    /** An example of the text form of a type, for messages. */
    static String example(ValueType type) {
        return switch (type.kind()) {
            case BOOLEAN -> "true or false";
            case TINYINT, SMALLINT, INT, BIGINT -> "an integer such as 42";
            case FLOAT, DOUBLE -> "a number such as 1.5";
            case DECIMAL -> "a decimal such as 12.50";
            case STRING -> "any text";
            case BINARY -> "hex such as 0x0a1b";
            case DATE -> "such as 2024-05-01";
            case TIME -> "such as 12:30:00";
            case TIMESTAMP -> "such as 2024-05-01 12:30:00.123";
            case TIMESTAMP_LTZ -> "such as 2024-05-01T12:30:00Z";
            case ARRAY, MAP, ROW, NESTED, UNSUPPORTED -> "not supported";
        };
    }
}
