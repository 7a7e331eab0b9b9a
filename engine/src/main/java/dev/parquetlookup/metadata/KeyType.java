package dev.parquetlookup.metadata;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * How the values of one sort-key column are compared, in a form decoded once from Parquet
 * statistics and page bytes.
 *
 * <ul>
 *   <li>{@link Kind#LONG}: INT32 and INT64 columns (INT, BIGINT, DATE, TIME, TIMESTAMP, DECIMAL
 *       stored as integers), compared as signed {@code long}s. Example: INT32 statistics bytes
 *       {@code 2a 00 00 00} are the key {@code 42L}.
 *   <li>{@link Kind#BYTES}: BINARY and FIXED_LEN_BYTE_ARRAY strings and binaries, compared as
 *       unsigned bytes (Parquet's order for them).
 *   <li>{@link Kind#BIG_INTEGER}: DECIMAL stored as BINARY or FIXED_LEN_BYTE_ARRAY, two's
 *       complement big-endian, compared as {@link BigInteger} unscaled values.
 * </ul>
 */
public final class KeyType {

    /** The comparable form of a key value. */
    public enum Kind {
        LONG,
        BYTES,
        BIG_INTEGER
    }

    private final Kind kind;
    private final PrimitiveType type;

    private KeyType(Kind kind, PrimitiveType type) {
        this.kind = kind;
        this.type = type;
    }

    /**
     * The key type of a column, or {@code null} if the column cannot be a lookup key (BOOLEAN,
     * FLOAT, DOUBLE, INT96, unsigned integers).
     */
    public static KeyType of(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        switch (type.getPrimitiveTypeName()) {
            case INT32:
            case INT64:
                if (logical instanceof IntLogicalTypeAnnotation i && !i.isSigned()) {
                    return null;
                }
                return new KeyType(Kind.LONG, type);
            case BINARY:
            case FIXED_LEN_BYTE_ARRAY:
                if (logical instanceof DecimalLogicalTypeAnnotation) {
                    return new KeyType(Kind.BIG_INTEGER, type);
                }
                if (logical instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation
                        || logical instanceof LogicalTypeAnnotation.IntervalLogicalTypeAnnotation) {
                    return null;
                }
                return new KeyType(Kind.BYTES, type);
            default:
                return null;
        }
    }

    public Kind kind() {
        return kind;
    }

    public PrimitiveType type() {
        return type;
    }

    /** Decodes a plain-encoded statistics or ColumnIndex bound. */
    public Object decodeBound(ByteBuffer bytes) {
        ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        switch (kind) {
            case LONG:
                return b.remaining() == 4 ? (long) b.getInt(b.position()) : b.getLong(b.position());
            case BYTES:
                byte[] raw = new byte[b.remaining()];
                b.get(raw);
                return raw;
            default:
                byte[] twos = new byte[b.remaining()];
                b.get(twos);
                return twos.length == 0 ? BigInteger.ZERO : new BigInteger(twos);
        }
    }

    /** Decodes a bound given as a byte array (statistics). */
    public Object decodeBound(byte[] bytes) {
        return decodeBound(ByteBuffer.wrap(bytes));
    }

    /** Compares two keys of this type (both non-null, both in this type's comparable form). */
    public int compare(Object a, Object b) {
        switch (kind) {
            case LONG:
                return Long.compare((Long) a, (Long) b);
            case BYTES:
                return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
            default:
                return ((BigInteger) a).compareTo((BigInteger) b);
        }
    }

    /** A short text of a key value for messages. */
    public String format(Object key) {
        if (key instanceof byte[] bytes) {
            if (type.getLogicalTypeAnnotation()
                    instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
                return "'" + new String(bytes, java.nio.charset.StandardCharsets.UTF_8) + "'";
            }
            StringBuilder hex = new StringBuilder("0x");
            for (int i = 0; i < Math.min(bytes.length, 32); i++) {
                hex.append(String.format("%02x", bytes[i]));
            }
            return bytes.length > 32 ? hex + "..." : hex.toString();
        }
        return String.valueOf(key);
    }

    /** Approximate heap bytes of one key value, for cache weights. */
    static long retainedBytes(Object key) {
        if (key instanceof byte[] bytes) {
            return 16L + bytes.length;
        }
        if (key instanceof BigInteger big) {
            return 40L + big.bitLength() / 8;
        }
        return 0;
    }
}
