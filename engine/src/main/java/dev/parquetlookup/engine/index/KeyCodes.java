package dev.parquetlookup.engine.index;

import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.math.BigInteger;
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
        long h = 0x9E3779B97F4A7C15L * types.size();
        for (int i = 0; i < types.size(); i++) {
            h = mix(h ^ part(key[i]));
        }
        return h;
    }

    private static long part(Object value) {
        if (value instanceof Long l) {
            return mix(l + 0x632BE59BD9B4E019L);
        }
        if (value instanceof BigInteger big) {
            return hash(big.toByteArray()) ^ 0x2545F4914F6CDD1DL;
        }
        return hash((byte[]) value);
    }

    /** A 64-bit hash of {@code bytes} (8 bytes at a time, murmur-style finalizer). */
    static long hash(byte[] bytes) {
        long h = 0xCBF29CE484222325L ^ bytes.length;
        int i = 0;
        for (; i + 8 <= bytes.length; i += 8) {
            long k = 0;
            for (int b = 7; b >= 0; b--) {
                k = (k << 8) | (bytes[i + b] & 0xFF);
            }
            h = (h ^ mix(k)) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        for (int b = bytes.length - 1; b >= i; b--) {
            tail = (tail << 8) | (bytes[b] & 0xFF);
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

    /**
     * The current value of a parquet-java column reader in the comparable form of {@code type} (the
     * reader stands on a non-null value).
     */
    static Object comparable(KeyType type, ColumnReader reader) {
        switch (type.kind()) {
            case LONG:
                return type.type().getPrimitiveTypeName() == PrimitiveTypeName.INT32
                        ? (long) reader.getInteger()
                        : reader.getLong();
            case BYTES:
                return reader.getBinary().getBytes();
            default:
                return bigInteger(reader.getBinary());
        }
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
