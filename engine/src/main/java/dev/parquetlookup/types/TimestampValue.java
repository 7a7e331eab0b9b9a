package dev.parquetlookup.types;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * A timestamp as milliseconds since the epoch plus the nanoseconds within that millisecond, the
 * same split Flink's {@code TimestampData} uses. For TIMESTAMP (without time zone) the epoch is the
 * wall-clock reading's; for TIMESTAMP_LTZ it is UTC.
 *
 * <p>Owns the conversions to and from {@link Instant}, text and the legacy INT96 form.
 *
 * <p>Example: 1970-01-01T00:00:00.001000002 is {@code new TimestampValue(1, 2)}.
 */
public record TimestampValue(long epochMillis, int nanoOfMillisecond)
        implements Comparable<TimestampValue> {

    private static final long JULIAN_EPOCH_DAY = 2_440_588L;

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

    /** From an instant (a TIMESTAMP's wall-clock reading as if it were UTC). */
    public static TimestampValue of(Instant instant) {
        return new TimestampValue(instant.toEpochMilli(), instant.getNano() % 1_000_000);
    }

    /**
     * From a legacy INT96 timestamp: 8 bytes nanoseconds of the day then 4 bytes Julian day,
     * little-endian.
     */
    public static TimestampValue ofInt96(byte[] int96) {
        return ofInt96(ByteBuffer.wrap(int96));
    }

    /**
     * From the legacy INT96 timestamp at {@code int96}'s position (see {@link #ofInt96(byte[])}),
     * read in place: sets the buffer's byte order to little-endian, leaves its position.
     */
    public static TimestampValue ofInt96(ByteBuffer int96) {
        ByteBuffer b = int96.order(ByteOrder.LITTLE_ENDIAN);
        long nanosOfDay = b.getLong(b.position());
        long epochDay = Integer.toUnsignedLong(b.getInt(b.position() + 8)) - JULIAN_EPOCH_DAY;
        long millis =
                Math.addExact(
                        Math.multiplyExact(epochDay, 86_400_000L),
                        Math.floorDiv(nanosOfDay, 1_000_000L));
        return new TimestampValue(millis, (int) Math.floorMod(nanosOfDay, 1_000_000L));
    }

    /** The legacy INT96 form (see {@link #ofInt96(byte[])}). */
    public byte[] toInt96() {
        long epochDay = Math.floorDiv(epochMillis, 86_400_000L);
        long nanosOfDay = Math.floorMod(epochMillis, 86_400_000L) * 1_000_000L + nanoOfMillisecond;
        ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(nanosOfDay);
        b.putInt(Math.toIntExact(epochDay + JULIAN_EPOCH_DAY));
        return b.array();
    }

    /** This timestamp as an instant. */
    public Instant toInstant() {
        return Instant.ofEpochMilli(epochMillis).plusNanos(nanoOfMillisecond);
    }

    /**
     * ISO-8601 text: with a {@code Z} for a TIMESTAMP_LTZ ({@code utc}), as a local date-time for a
     * TIMESTAMP.
     */
    public String toText(boolean utc) {
        Instant i = toInstant();
        return utc ? i.toString() : LocalDateTime.ofInstant(i, ZoneOffset.UTC).toString();
    }

    @Override
    public int compareTo(TimestampValue o) {
        int c = Long.compare(epochMillis, o.epochMillis);
        return c != 0 ? c : Integer.compare(nanoOfMillisecond, o.nanoOfMillisecond);
    }
}
