package dev.parquetlookup.types;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class TimestampValueTest {

    @Test
    void convertsToAndFromAnInstantBeforeAndAfterTheEpoch() {
        for (String text :
                new String[] {
                    "1970-01-01T00:00:00.001000002Z", "1969-12-31T23:59:59.999999999Z",
                    "2024-02-29T12:34:56.123456789Z", "1582-10-04T00:00:00Z"
                }) {
            Instant instant = Instant.parse(text);
            TimestampValue ts = TimestampValue.of(instant);
            assertThat(ts.toInstant()).isEqualTo(instant);
            assertThat(ts.toText(true)).isEqualTo(instant.toString());
            assertThat(ts.toText(false))
                    .isEqualTo(LocalDateTime.ofInstant(instant, ZoneOffset.UTC).toString());
        }
        assertThat(TimestampValue.of(Instant.parse("2024-02-29T12:34:56Z")).toText(false))
                .isEqualTo("2024-02-29T12:34:56");
        assertThat(TimestampValue.of(Instant.parse("1970-01-01T00:00:00.001000002Z")))
                .isEqualTo(new TimestampValue(1, 2));
    }

    @Test
    void int96RoundTripsAndMatchesTheLegacyLayout() {
        // 2000-01-01T00:00:01.5: Julian day 2451545, 1.5 s into the day.
        TimestampValue ts = TimestampValue.of(Instant.parse("2000-01-01T00:00:01.500000001Z"));
        byte[] int96 = ts.toInt96();
        assertThat(int96).hasSize(12);
        assertThat(
                        java.nio.ByteBuffer.wrap(int96)
                                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                                .getLong())
                .isEqualTo(1_500_000_001L);
        assertThat(
                        java.nio.ByteBuffer.wrap(int96)
                                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                                .getInt(8))
                .isEqualTo(2_451_545);
        assertThat(TimestampValue.ofInt96(int96)).isEqualTo(ts);
        TimestampValue before = TimestampValue.of(Instant.parse("1969-07-20T20:17:40.25Z"));
        assertThat(TimestampValue.ofInt96(before.toInt96())).isEqualTo(before);
    }
}
