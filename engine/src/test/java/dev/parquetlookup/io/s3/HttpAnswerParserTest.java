package dev.parquetlookup.io.s3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link HttpAnswerParser} frames answers as S3 and proxies send them (a length, chunked, 1xx
 * before the answer, no body, a body until the connection closes) whatever the reads cut them into:
 * every answer is fed whole, byte by byte and at every split into two reads, and must give the same
 * status, body and keep-alive.
 */
class HttpAnswerParserTest {

    /** What the parser told, as text: "status 206", "body ...", "end keep-alive". */
    private static final class Recorder implements HttpAnswerParser.Listener {
        final List<String> events = new ArrayList<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();

        @Override
        public void status(int code) {
            events.add("status " + code);
        }

        @Override
        public void body(ByteBuf bytes, int index, int length) {
            byte[] b = new byte[length];
            bytes.getBytes(index, b);
            body.writeBytes(b);
        }

        @Override
        public void end(boolean keepAlive) {
            events.add("body " + body.toString(StandardCharsets.ISO_8859_1));
            events.add(keepAlive ? "end keep-alive" : "end close");
            body.reset();
        }
    }

    private static List<String> parse(HttpAnswerParser parser, String... reads) {
        Recorder r = new Recorder();
        for (String read : reads) {
            ByteBuf in = Unpooled.copiedBuffer(read, StandardCharsets.ISO_8859_1);
            while (in.isReadable()) {
                int before = in.readableBytes();
                parser.feed(in, r);
                if (in.readableBytes() == before) {
                    break;
                }
            }
        }
        return r.events;
    }

    /** The events of {@code answer} fed whole, byte by byte, and split at every offset. */
    private static List<String> parseEveryWay(String answer) {
        List<String> whole = parse(new HttpAnswerParser(), answer);
        String[] bytes = answer.split("");
        assertThat(parse(new HttpAnswerParser(), bytes)).as("byte by byte").isEqualTo(whole);
        for (int cut = 1; cut < answer.length(); cut++) {
            assertThat(
                            parse(
                                    new HttpAnswerParser(),
                                    answer.substring(0, cut),
                                    answer.substring(cut)))
                    .as("cut at %d", cut)
                    .isEqualTo(whole);
        }
        return whole;
    }

    @Test
    void aRangeWithALengthKeepsTheConnection() {
        assertThat(
                        parseEveryWay(
                                "HTTP/1.1 206 Partial Content\r\n"
                                        + "x-amz-request-id: 1\r\n"
                                        + "content-length: 10\r\n"
                                        + "Content-Range: bytes 0-9/100\r\n"
                                        + "ETag: \"abc\"\r\n"
                                        + "\r\n"
                                        + "0123456789"))
                .containsExactly("status 206", "body 0123456789", "end keep-alive");
    }

    @Test
    void chunkedBodiesLoseTheirFraming() {
        assertThat(
                        parseEveryWay(
                                "HTTP/1.1 404 Not Found\r\n"
                                        + "Transfer-Encoding: gzip, Chunked\r\n"
                                        + "\r\n"
                                        + "5;name=value\r\n<Code\r\n"
                                        + "b\r\n>NoSuchKey<\r\n"
                                        + "0\r\n"
                                        + "Trailer: x\r\n"
                                        + "\r\n"))
                .containsExactly("status 404", "body <Code>NoSuchKey<", "end keep-alive");
    }

    @Test
    void informationalAnswersAreSkippedAndEmptyBodiesEndAtTheHead() {
        assertThat(
                        parseEveryWay(
                                "HTTP/1.1 100 Continue\r\n\r\n"
                                        + "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"))
                .containsExactly("status 204", "body ", "end keep-alive");
        assertThat(parseEveryWay("HTTP/1.1 412 Precondition Failed\nContent-Length: 0\n\n"))
                .as("bare LF line ends")
                .containsExactly("status 412", "body ", "end keep-alive");
    }

    @Test
    void connectionHeadersAndVersionsDecideKeepAlive() {
        assertThat(
                        parseEveryWay(
                                "HTTP/1.1 200 OK\r\nConnection: foo, Close\r\nContent-Length: 1\r\n\r\nx"))
                .containsExactly("status 200", "body x", "end close");
        assertThat(parseEveryWay("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx"))
                .containsExactly("status 200", "body x", "end close");
        assertThat(
                        parseEveryWay(
                                "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx"))
                .containsExactly("status 200", "body x", "end keep-alive");
        assertThat(
                        parseEveryWay(
                                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
                                        + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"))
                .as("chunked with a length: chunked wins, the connection is not reused")
                .containsExactly("status 200", "body x", "end close");
    }

    @Test
    void bytesAfterTheAnswerAreLeftAndTheConnectionNotReused() {
        HttpAnswerParser parser = new HttpAnswerParser();
        Recorder r = new Recorder();
        ByteBuf in =
                Unpooled.copiedBuffer(
                        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabHTTP/1.1",
                        StandardCharsets.ISO_8859_1);
        parser.feed(in, r);
        assertThat(r.events).containsExactly("status 200", "body ab", "end close");
        assertThat(in.toString(StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1");
    }

    @Test
    void withoutLengthTheBodyRunsUntilTheConnectionCloses() {
        HttpAnswerParser parser = new HttpAnswerParser();
        assertThat(parser.idle()).isTrue();
        Recorder r = new Recorder();
        parser.feed(
                Unpooled.copiedBuffer(
                        "HTTP/1.1 503 Slow Down\r\nServer: x\r\n\r\n<Error>",
                        StandardCharsets.ISO_8859_1),
                r);
        parser.feed(Unpooled.copiedBuffer("</Error>", StandardCharsets.ISO_8859_1), r);
        assertThat(parser.endsAtClose()).isTrue();
        assertThat(parser.idle()).isFalse();
        assertThat(r.events).containsExactly("status 503");
        assertThat(r.body.toString(StandardCharsets.ISO_8859_1)).isEqualTo("<Error></Error>");
    }

    @Test
    void answersFollowEachOtherOnOneConnection() {
        HttpAnswerParser parser = new HttpAnswerParser();
        assertThat(parse(parser, "HTTP/1.1 206 P\r\nContent-Length: 1\r\n\r\na"))
                .containsExactly("status 206", "body a", "end keep-alive");
        assertThat(parser.idle()).isTrue();
        assertThat(parse(parser, "HTTP/1.1 206 P\r\nContent-Length: 2\r\n\r\nbc"))
                .containsExactly("status 206", "body bc", "end keep-alive");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/2 200 OK\r\n\r\n",
                "ICY 200 OK\r\n\r\n",
                "HTTP/1.1 2x0 OK\r\n\r\n",
                "HTTP/1.1 200OK\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n",
                "HTTP/1.1 101 Switching Protocols\r\n\r\n"
            })
    void malformedAnswersFailAsNettysDecoderDid(String answer) {
        assertThatThrownBy(() -> parse(new HttpAnswerParser(), answer))
                .isInstanceOf(DecoderException.class)
                .hasMessageContaining("HTTP");
    }

    @Test
    void longLinesAndHeadsAreRefused() {
        String longLine = "x-long: " + "a".repeat(HttpAnswerParser.MAX_LINE) + "\r\n";
        assertThatThrownBy(() -> parse(new HttpAnswerParser(), "HTTP/1.1 200 OK\r\n", longLine))
                .isInstanceOf(DecoderException.class)
                .hasMessageContaining("longer than " + HttpAnswerParser.MAX_LINE);
        String header = "x-many: " + "a".repeat(1000) + "\r\n";
        assertThatThrownBy(
                        () ->
                                parse(
                                        new HttpAnswerParser(),
                                        "HTTP/1.1 200 OK\r\n" + header.repeat(70)))
                .isInstanceOf(DecoderException.class)
                .hasMessageContaining("longer than " + HttpAnswerParser.MAX_HEAD);
    }
}
