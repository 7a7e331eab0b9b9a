package dev.parquetlookup.io.s3;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ByteProcessor;

import java.nio.charset.StandardCharsets;

/**
 * Owns the framing of HTTP/1.1 answers on one connection of {@link NettyS3RangeReader}: the status
 * line, the three headers that frame the body ({@code Content-Length}, {@code Transfer-Encoding:
 * chunked}, {@code Connection}), then the body's bytes, handed on as they arrive (chunk framing
 * removed), then the end with whether the connection may carry the next request. Every other header
 * is skipped without being decoded, and no object is made per answer: it replaced Netty's {@code
 * HttpClientCodec}, whose header maps, strings and message objects per answer were a fifth of the
 * event loops' samples (2026-12-06, {@code docs/objectstore.md}).
 *
 * <p>Framing as RFC 9112 says for a client: 1xx answers are skipped; 204 and 304 have no body;
 * chunked wins over a length (and the connection is not reused); without either the body runs until
 * the connection closes ({@link #endsAtClose}). Lines may end in CRLF or LF. A head line longer
 * than {@value #MAX_LINE} bytes, a head longer than {@value #MAX_HEAD} bytes, an unparsable status
 * line, length or chunk size, or two different lengths throw a {@link DecoderException} (what
 * Netty's decoder gave for a malformed answer).
 *
 * <pre>{@code
 * parser.feed(buf, listener); // per read: listener.status(206), listener.body(...)..., listener.end(true)
 * }</pre>
 */
final class HttpAnswerParser {

    /** The longest line of an answer's head (status line, header, chunk size). */
    static final int MAX_LINE = 8192;

    /** The longest head (status line and headers) of one answer. */
    static final int MAX_HEAD = 65536;

    /**
     * What the parser found, in order: per answer {@link #status}, {@link #body}s, {@link #end}.
     */
    interface Listener {
        /** The status of a final (not 1xx) answer, after its head. */
        void status(int code);

        /** {@code length} bytes of the body at {@code index} of {@code bytes} (not consumed). */
        void body(ByteBuf bytes, int index, int length);

        /**
         * The answer's last byte came; {@code keepAlive}: the connection may carry another request
         * (false too when bytes no request asked for followed the answer in the same read).
         */
        void end(boolean keepAlive);
    }

    private enum State {
        STATUS,
        HEADERS,
        BODY,
        CHUNK_SIZE,
        CHUNK,
        CHUNK_END,
        TRAILERS,
        UNTIL_CLOSE
    }

    private State state = State.STATUS;
    private final byte[] line = new byte[MAX_LINE];
    private int lineLength;
    private int headBytes;
    private int status;
    private boolean keepAlive;
    private boolean chunked;
    private long contentLength;
    private long remaining; // of the body (BODY) or of the chunk (CHUNK)

    /**
     * Parses {@code in} to its end (or to the end of an answer: bytes after it are left in {@code
     * in}), telling {@code listener} what it finds.
     */
    void feed(ByteBuf in, Listener listener) {
        while (in.isReadable()) {
            switch (state) {
                case STATUS, HEADERS, CHUNK_SIZE, CHUNK_END, TRAILERS -> {
                    if (!readLine(in)) {
                        return;
                    }
                    if (line(in, listener)) {
                        return;
                    }
                }
                case BODY, CHUNK, UNTIL_CLOSE -> {
                    int n =
                            state == State.UNTIL_CLOSE
                                    ? in.readableBytes()
                                    : (int) Math.min(in.readableBytes(), remaining);
                    listener.body(in, in.readerIndex(), n);
                    in.skipBytes(n);
                    remaining -= n;
                    if (state == State.BODY && remaining == 0) {
                        end(in, listener);
                        return;
                    }
                    if (state == State.CHUNK && remaining == 0) {
                        state = State.CHUNK_END;
                    }
                }
            }
        }
    }

    /** Whether the answer being read ends when the connection closes (no length, not chunked). */
    boolean endsAtClose() {
        return state == State.UNTIL_CLOSE;
    }

    /** Whether the parser is between answers (nothing of one was read). */
    boolean idle() {
        return state == State.STATUS && lineLength == 0 && headBytes == 0;
    }

    /**
     * Takes one complete line (without its CR LF) into {@link #line}; false if it is not all in.
     */
    private boolean readLine(ByteBuf in) {
        int lf = in.forEachByte(ByteProcessor.FIND_LF);
        int end = lf < 0 ? in.writerIndex() : lf;
        int n = end - in.readerIndex();
        if (lineLength + n > MAX_LINE) {
            throw new DecoderException(
                    "a line of the HTTP answer is longer than " + MAX_LINE + " bytes");
        }
        in.readBytes(line, lineLength, n);
        lineLength += n;
        if (state == State.STATUS || state == State.HEADERS) {
            headBytes += n;
            if (headBytes > MAX_HEAD) {
                throw new DecoderException(
                        "the head of the HTTP answer is longer than " + MAX_HEAD + " bytes");
            }
        }
        if (lf < 0) {
            return false;
        }
        in.skipBytes(1);
        if (lineLength > 0 && line[lineLength - 1] == '\r') {
            lineLength--;
        }
        return true;
    }

    /** Acts on the line in {@link #line}; true if the answer ended. */
    private boolean line(ByteBuf in, Listener listener) {
        int n = lineLength;
        lineLength = 0;
        switch (state) {
            case STATUS -> {
                if (n == 0) {
                    return false; // blank lines before an answer are tolerated
                }
                statusLine(n);
                state = State.HEADERS;
            }
            case HEADERS -> {
                if (n > 0) {
                    header(n);
                    return false;
                }
                return headEnded(in, listener);
            }
            case CHUNK_SIZE -> {
                long size = chunkSize(n);
                if (size == 0) {
                    state = State.TRAILERS;
                } else {
                    remaining = size;
                    state = State.CHUNK;
                }
            }
            case CHUNK_END -> {
                if (n != 0) {
                    throw new DecoderException("a chunk of the HTTP answer has no CRLF after it");
                }
                state = State.CHUNK_SIZE;
            }
            case TRAILERS -> {
                if (n == 0) {
                    end(in, listener);
                    return true;
                }
            }
            default -> throw new IllegalStateException(state.name());
        }
        return false;
    }

    /** "HTTP/1.1 206 Partial Content": the status and the version's default of keep-alive. */
    private void statusLine(int n) {
        if (n < 12
                || !startsWith("HTTP/1.", 0)
                || !digit(line[7])
                || line[8] != ' '
                || !digit(line[9])
                || !digit(line[10])
                || !digit(line[11])
                || (n > 12 && line[12] != ' ')) {
            throw new DecoderException(
                    "not an HTTP/1.x status line: "
                            + new String(line, 0, Math.min(n, 80), StandardCharsets.ISO_8859_1));
        }
        status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        keepAlive = line[7] != '0';
        chunked = false;
        contentLength = -1;
    }

    private void header(int n) {
        if (line[0] == ' ' || line[0] == '\t') {
            return; // a folded line continues a header; none of those we read is folded
        }
        int colon = 0;
        while (colon < n && line[colon] != ':') {
            colon++;
        }
        if (colon == n) {
            return; // not a header: skipped, as lenient clients do
        }
        int from = colon + 1;
        int to = n;
        while (from < to && (line[from] == ' ' || line[from] == '\t')) {
            from++;
        }
        while (to > from && (line[to - 1] == ' ' || line[to - 1] == '\t')) {
            to--;
        }
        if (nameIs("content-length", colon)) {
            long length = decimal(from, to);
            if (contentLength >= 0 && contentLength != length) {
                throw new DecoderException(
                        "the HTTP answer has two lengths: " + contentLength + " and " + length);
            }
            contentLength = length;
        } else if (nameIs("transfer-encoding", colon)) {
            // The last coding decides (RFC 9112 6.3): "gzip, chunked" is chunked.
            int last = to;
            while (last > from && line[last - 1] != ',') {
                last--;
            }
            while (last < to && (line[last] == ' ' || line[last] == '\t')) {
                last++;
            }
            chunked = to - last == 7 && regionIs("chunked", last);
        } else if (nameIs("connection", colon)) {
            for (int t = from; t < to; ) {
                int e = t;
                while (e < to && line[e] != ',') {
                    e++;
                }
                int s = t;
                int f = e;
                while (s < f && line[s] == ' ') {
                    s++;
                }
                while (f > s && line[f - 1] == ' ') {
                    f--;
                }
                if (f - s == 5 && regionIs("close", s)) {
                    keepAlive = false;
                } else if (f - s == 10 && regionIs("keep-alive", s)) {
                    keepAlive = true;
                }
                t = e + 1;
            }
        }
    }

    /** The head ended: skips a 1xx answer, else tells the status and frames the body. */
    private boolean headEnded(ByteBuf in, Listener listener) {
        headBytes = 0;
        if (status < 200) {
            if (status == 101) {
                throw new DecoderException("the server switched protocols (HTTP 101)");
            }
            state = State.STATUS; // 100 Continue, 103 Early Hints: the real answer follows
            return false;
        }
        listener.status(status);
        if (status == 204 || status == 304) {
            end(in, listener);
            return true;
        }
        if (chunked) {
            keepAlive = keepAlive && contentLength < 0;
            state = State.CHUNK_SIZE;
        } else if (contentLength > 0) {
            remaining = contentLength;
            state = State.BODY;
        } else if (contentLength == 0) {
            end(in, listener);
            return true;
        } else {
            keepAlive = false;
            state = State.UNTIL_CLOSE;
        }
        return false;
    }

    private void end(ByteBuf in, Listener listener) {
        state = State.STATUS;
        listener.end(keepAlive && !in.isReadable());
    }

    /** The size of a chunk from its line ("1f4" or "1f4;name=value"). */
    private long chunkSize(int n) {
        int end = 0;
        while (end < n && line[end] != ';' && line[end] != ' ' && line[end] != '\t') {
            end++;
        }
        if (end == 0 || end > 15) {
            throw new DecoderException("a chunk size of the HTTP answer is not a hex number");
        }
        long size = 0;
        for (int i = 0; i < end; i++) {
            int d = Character.digit(line[i], 16);
            if (d < 0) {
                throw new DecoderException("a chunk size of the HTTP answer is not a hex number");
            }
            size = size * 16 + d;
        }
        return size;
    }

    private long decimal(int from, int to) {
        if (from == to || to - from > 18) {
            throw new DecoderException("the HTTP answer's Content-Length is not a number");
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            if (!digit(line[i])) {
                throw new DecoderException("the HTTP answer's Content-Length is not a number");
            }
            v = v * 10 + (line[i] - '0');
        }
        return v;
    }

    private boolean nameIs(String lowerCase, int length) {
        return length == lowerCase.length() && regionIs(lowerCase, 0);
    }

    /** Whether {@link #line} holds {@code lowerCase} at {@code at}, ignoring ASCII case. */
    private boolean regionIs(String lowerCase, int at) {
        for (int i = 0; i < lowerCase.length(); i++) {
            int c = line[at + i];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != lowerCase.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private boolean startsWith(String prefix, int at) {
        for (int i = 0; i < prefix.length(); i++) {
            if (line[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }
}
