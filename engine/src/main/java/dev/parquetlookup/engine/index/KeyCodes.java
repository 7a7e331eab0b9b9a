package dev.parquetlookup.engine.index;

import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Owns the 64-bit code a key index sorts by. A single integer key (INT, BIGINT, DATE, TIMESTAMP,
 * DECIMAL stored as integers) is its own code: the index holds the key itself and a row whose key
 * differs from its entry is a damaged index. Any other key (strings, binary decimals, several
 * columns) is coded by a 64-bit hash of its comparable form: rows of other keys with the same hash
 * are read, found different, and dropped; a row whose key hashes to another code than its entry is
 * a damaged index. Stable across JVMs: the codes are written to disk.
 *
 * <p>Example: key {@code [42L]} of a BIGINT column has code {@code 42}; key {@code ['eu', 7L]} has
 * code {@code hash('eu', 7)}, the same in every process.
 */
public final class KeyCodes {

    private KeyCodes() {}

    /** Whether keys of {@code types} are their own codes (one integer column). */
    public static boolean exact(List<KeyType> types) {
        return types.size() == 1 && types.get(0).kind() == KeyType.Kind.LONG;
    }

    /** The code of {@code key} (comparable forms, see {@link KeyType}; none null). */
    public static long code(List<KeyType> types, Object[] key) {
        if (exact(types)) {
            return (Long) key[0];
        }
        long h = start(types.size());
        for (int i = 0; i < types.size(); i++) {
            h = step(h, part(key[i]));
        }
        return h;
    }

    /**
     * The hash a code of {@code parts} key parts starts from; {@code step} then takes in each part
     * (in key order): {@code code = step(...step(start(n), part0)..., partN-1)}.
     */
    static long start(int parts) {
        return 0x9E3779B97F4A7C15L * parts;
    }

    /** Takes the key part {@code part} into the hash {@code h}. */
    static long step(long h, long part) {
        return mix(h ^ part);
    }

    private static long part(Object value) {
        if (value instanceof Long l) {
            return longPart(l);
        }
        if (value instanceof BigInteger big) {
            return bigIntegerPart(big);
        }
        return hash((byte[]) value);
    }

    /** The key part of an integer value (in a hashed key). */
    static long longPart(long value) {
        return mix(value + 0x632BE59BD9B4E019L);
    }

    private static long bigIntegerPart(BigInteger big) {
        return hash(big.toByteArray()) ^ 0x2545F4914F6CDD1DL;
    }

    /** The key part of a binary decimal (two's complement, big-endian) given as its bytes. */
    static long bigIntegerPart(Binary binary) {
        return bigIntegerPart(bigInteger(binary));
    }

    /** The key part of a string or binary value: the hash of its bytes. */
    static long bytesPart(Binary binary) {
        ByteBuffer bytes = binary.toByteBuffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return hash(bytes, bytes.position(), bytes.remaining());
    }

    /** A 64-bit hash of {@code bytes} (8 bytes at a time, murmur-style finalizer). */
    static long hash(byte[] bytes) {
        return hash(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0, bytes.length);
    }

    /**
     * {@link #hash(byte[])} of the {@code length} bytes of {@code buffer} (little-endian order) at
     * absolute index {@code at}, read in place.
     */
    static long hash(ByteBuffer buffer, int at, int length) {
        long h = 0xCBF29CE484222325L ^ length;
        int end = at + length;
        int i = at;
        for (; i + 8 <= end; i += 8) {
            h = (h ^ mix(buffer.getLong(i))) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        for (int b = end - 1; b >= i; b--) {
            tail = (tail << 8) | (buffer.get(b) & 0xFF);
        }
        return mix(h ^ mix(tail + 1));
    }

    /** The finalizer of MurmurHash3 (fmix64): every input bit affects every output bit. */
    private static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xFF51AFD7ED558CCDL;
        k ^= k >>> 33;
        k *= 0xC4CEB93FE53A6CD9L;
        k ^= k >>> 33;
        return k;
    }

    private static BigInteger bigInteger(Binary binary) {
        byte[] bytes = binary.getBytes();
        return bytes.length == 0 ? BigInteger.ZERO : new BigInteger(bytes);
    }

    /**
     * Reads one value of a key column in the comparable form of {@code type}, through the engine's
     * page cursor (lookups check the key of each row they read with it).
     */
    public static ColumnTypes.ValueReader comparableReader(KeyType type) {
        switch (type.kind()) {
            case LONG:
                return type.type().getPrimitiveTypeName() == PrimitiveTypeName.INT32
                        ? in -> (long) in.readInteger()
                        : in -> in.readLong();
            case BYTES:
                return in -> in.readBytes().getBytes();
            default:
                return in -> bigInteger(in.readBytes());
        }
    }
}
