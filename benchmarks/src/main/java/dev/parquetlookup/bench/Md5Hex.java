package dev.parquetlookup.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The seed's value column: lower-case hex MD5 of the decimal text of the key. */
final class Md5Hex {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private static final ThreadLocal<MessageDigest> DIGEST =
            ThreadLocal.withInitial(
                    () -> {
                        try {
                            return MessageDigest.getInstance("MD5");
                        } catch (NoSuchAlgorithmException e) {
                            throw new IllegalStateException("MD5 missing from this JVM", e);
                        }
                    });

    private Md5Hex() {}

    /** 32 ASCII bytes, e.g. {@code of(1)} is {@code c4ca4238a0b923820dcc509a6f75849b}. */
    static byte[] bytes(long k) {
        MessageDigest md = DIGEST.get();
        byte[] digest = md.digest(Long.toString(k).getBytes(StandardCharsets.US_ASCII));
        byte[] out = new byte[32];
        for (int i = 0; i < 16; i++) {
            out[2 * i] = HEX[(digest[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[digest[i] & 0xf];
        }
        return out;
    }

    static String of(long k) {
        return new String(bytes(k), StandardCharsets.US_ASCII);
    }
}
