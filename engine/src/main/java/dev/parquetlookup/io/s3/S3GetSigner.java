package dev.parquetlookup.io.s3;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Owns AWS Signature Version 4 for S3 {@code GET} requests without a body or query string (the
 * ranged GETs of {@link NettyS3RangeReader}): the canonical request over {@code host}, {@code
 * x-amz-content-sha256}, {@code x-amz-date} and, with session credentials, {@code
 * x-amz-security-token}. {@code Range} and {@code If-Match} are sent unsigned (S3 allows it), so
 * every GET of one object in one second has the same signature: {@link S3RangeRequests} signs once
 * per object and second. The signing key is derived once per day, region and secret; one signature
 * costs one SHA-256 and two HMACs over short strings, with the {@link MessageDigest} and {@link
 * Mac} of the calling thread (looked up once per thread) and the date formatted once per second.
 *
 * <pre>{@code
 * S3GetSigner signer = new S3GetSigner("us-east-1");
 * S3GetSigner.Signed s = signer.sign("s3.amazonaws.com", "/bucket/key", "AKIA...", "secret", null,
 *         Instant.now());
 * // send headers: x-amz-date = s.amzDate(), x-amz-content-sha256 = S3GetSigner.EMPTY_SHA256,
 * // Authorization = s.authorization()
 * }</pre>
 */
final class S3GetSigner {

    /** SHA-256 of the empty body. */
    static final String EMPTY_SHA256 =
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /** A signature: the headers to send with the request. */
    record Signed(String amzDate, String authorization) {}

    private record SigningKey(String day, String secret, byte[] key) {}

    private record AmzDate(long epochSecond, String text) {}

    private static final ThreadLocal<MessageDigest> SHA256 =
            ThreadLocal.withInitial(
                    () -> {
                        try {
                            return MessageDigest.getInstance("SHA-256");
                        } catch (GeneralSecurityException e) {
                            throw new IllegalStateException("SHA-256 is not available", e);
                        }
                    });

    private static final ThreadLocal<Mac> HMAC =
            ThreadLocal.withInitial(
                    () -> {
                        try {
                            return Mac.getInstance("HmacSHA256");
                        } catch (GeneralSecurityException e) {
                            throw new IllegalStateException("HmacSHA256 is not available", e);
                        }
                    });

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final String region;
    private volatile SigningKey signingKey;
    private volatile AmzDate amzDate = new AmzDate(Long.MIN_VALUE, "");

    S3GetSigner(String region) {
        this.region = region;
    }

    /**
     * Signs a GET of {@code canonicalPath} (already URI-encoded, see {@link #encodePath}) at {@code
     * host} (with {@code :port} when the URI has one).
     */
    Signed sign(
            String host,
            String canonicalPath,
            String accessKey,
            String secretKey,
            String sessionToken,
            Instant now) {
        String amzDate = amzDate(now);
        String day = amzDate.substring(0, 8);
        String scope = day + "/" + region + "/s3/aws4_request";
        StringBuilder canonical = new StringBuilder(256);
        canonical.append("GET\n").append(canonicalPath).append("\n\n");
        canonical.append("host:").append(host).append('\n');
        canonical.append("x-amz-content-sha256:").append(EMPTY_SHA256).append('\n');
        canonical.append("x-amz-date:").append(amzDate).append('\n');
        String signedHeaders = "host;x-amz-content-sha256;x-amz-date";
        if (sessionToken != null) {
            canonical.append("x-amz-security-token:").append(sessionToken).append('\n');
            signedHeaders += ";x-amz-security-token";
        }
        canonical.append('\n').append(signedHeaders).append('\n').append(EMPTY_SHA256);
        String toSign =
                "AWS4-HMAC-SHA256\n"
                        + amzDate
                        + "\n"
                        + scope
                        + "\n"
                        + hex(sha256(canonical.toString()));
        String signature = hex(hmac(key(day, secretKey), toSign));
        return new Signed(
                amzDate,
                "AWS4-HMAC-SHA256 Credential="
                        + accessKey
                        + "/"
                        + scope
                        + ", SignedHeaders="
                        + signedHeaders
                        + ", Signature="
                        + signature);
    }

    /** {@code now} as {@code yyyyMMdd'T'HHmmss'Z'}, formatted once per second. */
    private String amzDate(Instant now) {
        AmzDate d = amzDate;
        if (d.epochSecond() != now.getEpochSecond()) {
            d = new AmzDate(now.getEpochSecond(), AMZ_DATE.format(now));
            amzDate = d;
        }
        return d.text();
    }

    private byte[] key(String day, String secret) {
        SigningKey k = signingKey;
        if (k == null || !k.day().equals(day) || !k.secret().equals(secret)) {
            k = new SigningKey(day, secret, signingKey(secret, day, region, "s3"));
            signingKey = k;
        }
        return k.key();
    }

    /**
     * SigV4's signing key of {@code secret} for {@code day} ({@code yyyyMMdd}), {@code region} and
     * {@code service}: HMACs of the day, region, service and {@code aws4_request} in turn.
     */
    static byte[] signingKey(String secret, String day, String region, String service) {
        byte[] date = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), day);
        byte[] regional = hmac(date, region);
        byte[] serviceKey = hmac(regional, service);
        return hmac(serviceKey, "aws4_request");
    }

    /**
     * S3's canonical URI of a path: every byte but unreserved characters ({@code A-Za-z0-9-._~})
     * and {@code /} percent-encoded (UTF-8), once. The same string is the request's path.
     */
    static String encodePath(String path) {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~'
                    || c == '/') {
                out.append((char) c);
            } else {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = HMAC.get();
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private static byte[] sha256(String data) {
        return SHA256.get().digest(data.getBytes(StandardCharsets.UTF_8));
    }

    private static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
