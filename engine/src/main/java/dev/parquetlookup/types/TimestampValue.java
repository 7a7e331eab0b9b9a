package dev.parquetlookup.types;

/**
 * A timestamp as milliseconds since the epoch plus the nanoseconds within that millisecond, the
 * same split Flink's {@code TimestampData} uses. For TIMESTAMP (without time zone) the epoch is the
 * wall-clock reading's; for TIMESTAMP_LTZ it is UTC.
 *
 * <p>Example: 1970-01-01T00:00:00.001000002 is {@code new TimestampValue(1, 2)}.
 */
public record TimestampValue(long epochMillis, int nanoOfMillisecond)
        implements Comparable<TimestampValue> {

    public TimestampValue {
        if (nanoOfMillisecond < 0 || nanoOfMillisecond > 999_999) {
            throw new IllegalArgumentException(
                    "nanoOfMillisecond out of range: " + nanoOfMillisecond);
        }
    }

    /** From microseconds since the epoch. */
    public static TimestampValue ofEpochMicros(long micros) {
        return new TimestampValue(
                Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
    }

    /** From nanoseconds since the epoch. */
    public static TimestampValue ofEpochNanos(long nanos) {
        return new TimestampValue(
                Math.floorDiv(nanos, 1_000_000), (int) Math.floorMod(nanos, 1_000_000));
    }

    @Override
    public int compareTo(TimestampValue o) {
        int c = Long.compare(epochMillis, o.epochMillis);
        return c != 0 ? c : Integer.compare(nanoOfMillisecond, o.nanoOfMillisecond);
    }
}
