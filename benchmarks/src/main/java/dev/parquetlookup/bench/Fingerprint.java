package dev.parquetlookup.bench;

import javax.annotation.Nullable;

import java.nio.charset.StandardCharsets;

/**
 * Result fingerprints: every answer is hashed with its position in the key sequence (FNV-1a 64),
 * and a run's fingerprint is the sum of those hashes over a prefix of the sequence, so threads may
 * finish answers in any order and still agree.
 */
final class Fingerprint {

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private Fingerprint() {}

    /** Never 0 (0 marks "not answered yet"). */
    static long answer(int index, long key, @Nullable String value) {
        long h = FNV_OFFSET;
        h = mixLong(h, index);
        h = mixLong(h, key);
        if (value == null) {
            h = (h ^ 0xff) * FNV_PRIME;
        } else {
            for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
                h = (h ^ (b & 0xff)) * FNV_PRIME;
            }
            h = (h ^ 0xfe) * FNV_PRIME;
        }
        return h == 0 ? 1 : h;
    }

    /** FNV-1a over any byte sequence, for the page-index suite's row fingerprints. */
    static long fnv1a(long h, byte[] bytes) {
        for (byte b : bytes) {
            h = (h ^ (b & 0xff)) * FNV_PRIME;
        }
        return h;
    }

    static long start() {
        return FNV_OFFSET;
    }

    static long mixLong(long h, long v) {
        for (int i = 0; i < 8; i++) {
            h = (h ^ ((v >>> (8 * i)) & 0xff)) * FNV_PRIME;
        }
        return h;
    }

    static long sum(long[] answers, int prefix) {
        long s = 0;
        for (int i = 0; i < prefix; i++) {
            s += answers[i];
        }
        return s;
    }

    static String hex(long fingerprint) {
        return String.format("fnv1a64:%016x", fingerprint);
    }
}
