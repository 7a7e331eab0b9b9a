package dev.parquetlookup.tools;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.HexFormat;
import java.util.Locale;

/** How the tools print numbers, sizes and values. */
final class Formats {

    private Formats() {}

    /** {@code 1234567 -> "1,234,567"}. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 1536 -> "1.5 KiB"}. */
    static String bytes(double n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (Math.abs(n) >= 1024 && u < units.length - 1) {
            n /= 1024;
            u++;
        }
        return u == 0
                ? String.format(Locale.ROOT, "%.0f B", n)
                : String.format(Locale.ROOT, "%.1f %s", n, units[u]);
    }

    /** Milliseconds with enough digits for short operations. */
    static String millis(long nanos) {
        double ms = nanos / 1e6;
        return ms < 10
                ? String.format(Locale.ROOT, "%.3f ms", ms)
                : ms < 10_000
                        ? String.format(Locale.ROOT, "%.1f ms", ms)
                        : String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }

    /**
     * Parses a size: a number of bytes with an optional unit, {@code 1048576}, {@code 512k}, {@code
     * 256MiB}, {@code 1g}.
     */
    static long parseSize(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "");
        int i = 0;
        while (i < t.length() && (Character.isDigit(t.charAt(i)) || t.charAt(i) == '.')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a size: use bytes or a unit, e.g. 268435456 or 256MiB");
        }
        double number = Double.parseDouble(t.substring(0, i));
        String unit = t.substring(i).trim();
        long factor =
                switch (unit) {
                    case "", "b" -> 1L;
                    case "k", "kb", "kib" -> 1L << 10;
                    case "m", "mb", "mib" -> 1L << 20;
                    case "g", "gb", "gib" -> 1L << 30;
                    case "t", "tb", "tib" -> 1L << 40;
                    default ->
                            throw new IllegalArgumentException(
                                    "'"
                                            + text
                                            + "' has an unknown unit '"
                                            + unit
                                            + "': use B, KiB, MiB, GiB or TiB");
                };
        long result = (long) (number * factor);
        if (result <= 0) {
            throw new IllegalArgumentException("'" + text + "' must be a positive size");
        }
        return result;
    }

    /** One value in the engine's representation as a person reads it; null as {@code NULL}. */
    static String value(ValueType type, Object v) {
        if (v == null) {
            return "NULL";
        }
        return switch (type.kind()) {
            case STRING ->
                    v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
            case BINARY ->
                    v instanceof byte[] b ? "0x" + HexFormat.of().formatHex(b) : v.toString();
            case DATE -> LocalDate.ofEpochDay(((Number) v).longValue()).toString();
            case TIME -> LocalTime.ofNanoOfDay(((Number) v).longValue()).toString();
            case TIMESTAMP, TIMESTAMP_LTZ ->
                    v instanceof TimestampValue ts
                            ? ts.toText(type.kind() == ValueType.Kind.TIMESTAMP_LTZ)
                            : v.toString();
            case DECIMAL -> v instanceof BigDecimal d ? d.toPlainString() : v.toString();
            case ARRAY, MAP, ROW -> nested(type, v);
            default -> v.toString();
        };
    }

    /** {@code [a, NULL]}, {@code {k=v}}, {@code {city: Paris, zip: 75001}}. */
    private static String nested(ValueType type, Object v) {
        StringBuilder b = new StringBuilder();
        if (type.kind() == ValueType.Kind.ARRAY && v instanceof java.util.List<?> list) {
            ValueType element = type.fields().get(0).type();
            b.append('[');
            for (int i = 0; i < list.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(value(element, list.get(i)));
            }
            return b.append(']').toString();
        }
        if (type.kind() == ValueType.Kind.MAP && v instanceof java.util.Map<?, ?> map) {
            b.append('{');
            for (java.util.Map.Entry<?, ?> e : map.entrySet()) {
                b.append(b.length() == 1 ? "" : ", ")
                        .append(value(type.fields().get(0).type(), e.getKey()))
                        .append('=')
                        .append(value(type.fields().get(1).type(), e.getValue()));
            }
            return b.append('}').toString();
        }
        if (type.kind() == ValueType.Kind.ROW && v instanceof Object[] fields) {
            b.append('{');
            for (int i = 0; i < fields.length; i++) {
                ValueType.Field field = type.fields().get(i);
                b.append(i == 0 ? "" : ", ")
                        .append(field.name())
                        .append(": ")
                        .append(value(field.type(), fields[i]));
            }
            return b.append('}').toString();
        }
        return v.toString();
    }
}
