package dev.parquetlookup.s3proxy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Finds where HTTP/1.1 messages begin and end in one direction of a connection, without copying
 * bodies: heads are parsed (start line, {@code Content-Length}, {@code Transfer-Encoding}), bodies
 * are skipped by length, by chunks, or to the end of the stream. {@link LatencyProxy} uses it to
 * delay each response's first byte and to count requests in flight.
 *
 * <p>Usage: while bytes remain, {@link #consume} returns how many of them belong to the current
 * message; {@link #atMessageStart()} is true before the first byte of a message, {@link
 * #messageComplete()} right after its last. A response's body framing needs its request's method
 * (no body after {@code HEAD}): {@link #setNextResponseToHead} before its head completes.
 */
final class HttpFramer {

    /** Thrown on a head that is not HTTP/1.x; the caller stops framing that direction. */
    static final class NotHttpException extends Exception {
        NotHttpException(String message) {
            super(message);
        }
    }

    private enum State {
        START,
        HEAD,
        FIXED_BODY,
        CHUNK_SIZE,
        CHUNK_DATA,
        CHUNK_DATA_END,
        TRAILER,
        UNTIL_CLOSE,
        COMPLETE
    }

    private static final int MAX_HEAD_BYTES = 64 * 1024;

    private final boolean responses;
    private final ByteArrayOutputStream head = new ByteArrayOutputStream(512);
    private final StringBuilder line = new StringBuilder(16);
    private State state = State.START;
    private long remaining;
    private int tail; // the last four bytes of a head, to find CRLFCRLF
    private boolean nextIsHeadRequest;
    private String method = "";
    private String target = "";
    private boolean ranged;
    private int status;

    HttpFramer(boolean responses) {
        this.responses = responses;
    }

    boolean atMessageStart() {
        return state == State.START || state == State.COMPLETE;
    }

    boolean messageComplete() {
        return state == State.COMPLETE;
    }

    /** Whether the head of the current message has been parsed. */
    boolean headParsed() {
        return state != State.START && state != State.HEAD && state != State.COMPLETE;
    }

    /** The request method of the current (request) message once its head is parsed. */
    String method() {
        return method;
    }

    /** The request target of the current (request) message once its head is parsed. */
    String target() {
        return target;
    }

    /** Whether the current (request) message has a {@code Range} header, once parsed. */
    boolean ranged() {
        return ranged;
    }

    /** The status of the current (response) message once its head is parsed. */
    int status() {
        return status;
    }

    /** Whether the current response is an interim (1xx) one, followed by another response. */
    boolean interim() {
        return status >= 100 && status < 200;
    }

    void setNextResponseToHead(boolean head) {
        this.nextIsHeadRequest = head;
    }

    /**
     * Consumes bytes of the current message from {@code buf[off, off + len)}.
     *
     * @return how many bytes belong to the current message (at least 1 if {@code len > 0}); after
     *     the message's last byte, {@link #messageComplete()} is true
     */
    int consume(byte[] buf, int off, int len) throws NotHttpException {
        if (state == State.COMPLETE) {
            state = State.START;
        }
        int i = off;
        int end = off + len;
        while (i < end) {
            switch (state) {
                case START -> {
                    head.reset();
                    tail = 0;
                    state = State.HEAD;
                }
                case HEAD -> {
                    byte b = buf[i++];
                    head.write(b);
                    tail = (tail << 8) | (b & 0xff);
                    if (tail == 0x0d0a0d0a) {
                        parseHead();
                        if (state == State.COMPLETE) {
                            return i - off;
                        }
                    } else if (head.size() > MAX_HEAD_BYTES) {
                        throw new NotHttpException("no end of an HTTP head in 64 KiB");
                    }
                }
                case FIXED_BODY, CHUNK_DATA -> {
                    int n = (int) Math.min(remaining, end - i);
                    i += n;
                    remaining -= n;
                    if (remaining == 0) {
                        if (state == State.FIXED_BODY) {
                            state = State.COMPLETE;
                            return i - off;
                        }
                        state = State.CHUNK_DATA_END;
                        line.setLength(0);
                    }
                }
                case CHUNK_SIZE, CHUNK_DATA_END, TRAILER -> {
                    byte b = buf[i++];
                    if (b != '\n') {
                        if (b != '\r') {
                            if (line.length() > 8 * 1024) {
                                throw new NotHttpException("a chunk line longer than 8 KiB");
                            }
                            line.append((char) b);
                        }
                        continue;
                    }
                    String text = line.toString();
                    line.setLength(0);
                    if (state == State.CHUNK_DATA_END) {
                        state = State.CHUNK_SIZE;
                    } else if (state == State.CHUNK_SIZE) {
                        remaining = parseChunkSize(text);
                        state = remaining == 0 ? State.TRAILER : State.CHUNK_DATA;
                    } else if (text.isEmpty()) {
                        state = State.COMPLETE;
                        return i - off;
                    }
                }
                case UNTIL_CLOSE -> i = end;
                default -> throw new IllegalStateException(state.name());
            }
        }
        return i - off;
    }

    private void parseHead() throws NotHttpException {
        String text = head.toString(StandardCharsets.ISO_8859_1);
        String[] lines = text.split("\r\n");
        String startLine = lines[0];
        String[] parts = startLine.split(" ", 3);
        if (responses) {
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new NotHttpException("not an HTTP/1.x status line: " + startLine);
            }
            try {
                status = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new NotHttpException("bad status in " + startLine);
            }
        } else {
            if (parts.length < 3 || !parts[2].startsWith("HTTP/1.")) {
                throw new NotHttpException("not an HTTP/1.x request line: " + startLine);
            }
            method = parts[0];
            target = parts[1];
            ranged = false;
        }
        long contentLength = -1;
        boolean chunked = false;
        for (int k = 1; k < lines.length; k++) {
            int colon = lines[k].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = lines[k].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[k].substring(colon + 1).trim();
            if (name.equals("content-length")) {
                try {
                    contentLength = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new NotHttpException("bad Content-Length: " + value);
                }
            } else if (name.equals("range")) {
                ranged = true;
            } else if (name.equals("transfer-encoding")) {
                chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
            }
        }
        boolean noBody =
                responses
                        ? nextIsHeadRequest || interim() || status == 204 || status == 304
                        : !chunked && contentLength <= 0;
        if (noBody) {
            state = State.COMPLETE;
        } else if (chunked) {
            state = State.CHUNK_SIZE;
            line.setLength(0);
        } else if (contentLength >= 0) {
            remaining = contentLength;
            state = contentLength == 0 ? State.COMPLETE : State.FIXED_BODY;
        } else {
            state = State.UNTIL_CLOSE; // a response delimited by the connection's end
        }
    }

    private static long parseChunkSize(String text) throws NotHttpException {
        int semi = text.indexOf(';');
        String hex = (semi >= 0 ? text.substring(0, semi) : text).trim();
        try {
            long size = Long.parseLong(hex, 16);
            if (size < 0) {
                throw new NotHttpException("negative chunk size: " + text);
            }
            return size;
        } catch (NumberFormatException e) {
            throw new NotHttpException("bad chunk size: " + text);
        }
    }
}
