package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.RangeSource.FileRange;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link S3RangeRequests#writeRequest} ends a request's head with its range, first to last byte.
 */
class S3RangeRequestsTest {

    private static String request(long offset, int length) {
        ByteBuf out = Unpooled.buffer(4);
        byte[] head = "GET /b/k HTTP/1.1\r\nHost: h\r\n".getBytes(StandardCharsets.ISO_8859_1);
        S3RangeRequests.writeRequest(out, head, new FileRange(offset, length));
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void theRangeLineNamesTheFirstAndLastByte() {
        assertThat(request(0, 1))
                .isEqualTo("GET /b/k HTTP/1.1\r\nHost: h\r\nRange: bytes=0-0\r\n\r\n");
        assertThat(request(4096, 100)).endsWith("Range: bytes=4096-4195\r\n\r\n");
        assertThat(request(9_999_999_999L, 10))
                .endsWith("Range: bytes=9999999999-10000000008\r\n\r\n");
    }
}
