package dev.parquetlookup.metadata;

import java.io.IOException;

/**
 * Reads Thrift compact-protocol structures (Parquet's page headers and page indexes) straight from
 * a byte array, without parquet-java's per-structure stream, transport, protocol and objects. Every
 * length is checked against the bytes given: damaged input ends in an {@link IOException}, never in
 * another exception, an endless loop or a read past the range.
 *
 * <p>The encoding in brief: a struct is a run of field headers ending with a 0 byte; a field header
 * holds the field id delta (high nibble; 0 means a zigzag i16 id follows) and the type (low
 * nibble); integers are zigzag varints; booleans live in the field header's type; a list header
 * holds the size (high nibble, 15 means a varint follows) and the element type.
 *
 * <pre>{@code
 * ThriftCompactReader in = new ThriftCompactReader(bytes, 0, bytes.length);
 * while (in.nextField()) {
 *     if (in.fieldId() == 1 && in.fieldType() == ThriftCompactReader.I32) {
 *         int type = in.readI32();
 *     } else {
 *         in.skip(in.fieldType());
 *     }
 * }
 * }</pre>
 */
public final class ThriftCompactReader {

    public static final int BOOLEAN_TRUE = 1;
    public static final int BOOLEAN_FALSE = 2;
    public static final int BYTE = 3;
    public static final int I16 = 4;
    public static final int I32 = 5;
    public static final int I64 = 6;
    public static final int DOUBLE = 7;
    public static final int BINARY = 8;
    public static final int LIST = 9;
    public static final int SET = 10;
    public static final int MAP = 11;
    public static final int STRUCT = 12;

    /** Nesting allowed while skipping; Parquet's structures nest 2-3 deep. */
    private static final int MAX_DEPTH = 16;

    private final byte[] bytes;
    private final int end;
    private int pos;

    // The current struct's last field; saved and restored around nested structs by the caller.
    private int fieldId;
    private int fieldType;
    private int listElementType;

    /** Reads {@code length} bytes of {@code bytes} from {@code offset}. */
    public ThriftCompactReader(byte[] bytes, int offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset > bytes.length - length) {
            throw new IOException("Thrift range outside the buffer");
        }
        this.bytes = bytes;
        this.pos = offset;
        this.end = offset + length;
    }

    /** Where the next byte would be read. */
    public int position() {
        return pos;
    }

    /**
     * Starts a struct: the next {@link #nextField()} reads its first field. Returns the enclosing
     * struct's last field id, to pass to {@link #endStruct(int)} when the nested struct is done.
     */
    public int beginStruct() {
        int outer = fieldId;
        fieldId = 0;
        return outer;
    }

    /** Resumes the enclosing struct after a nested one (see {@link #beginStruct()}). */
    public void endStruct(int outerFieldId) {
        fieldId = outerFieldId;
    }

    /** Reads the next field header of the current struct; false at its end. */
    public boolean nextField() throws IOException {
        int header = readByte() & 0xff;
        fieldType = header & 0x0f;
        if (fieldType == 0) {
            return false;
        }
        int delta = header >>> 4;
        fieldId = delta == 0 ? (short) zigzag((int) readVarint()) : fieldId + delta;
        return true;
    }

    public int fieldId() {
        return fieldId;
    }

    public int fieldType() {
        return fieldType;
    }

    /** A field of type i32 (or an enum), checked. */
    public int readI32(String name) throws IOException {
        expect(I32, name);
        return zigzag((int) readVarint());
    }

    /** A field of type i64, checked. */
    public long readI64(String name) throws IOException {
        expect(I64, name);
        return zigzagLong(readVarint());
    }

    /** A field of type binary, checked, copied out. */
    public byte[] readBinary(String name) throws IOException {
        expect(BINARY, name);
        int n = length(readVarint());
        byte[] value = java.util.Arrays.copyOfRange(bytes, pos, pos + n);
        pos += n;
        return value;
    }

    /** A boolean field (its value is in the field header). */
    public boolean readBoolean(String name) throws IOException {
        if (fieldType != BOOLEAN_TRUE && fieldType != BOOLEAN_FALSE) {
            throw new IOException("Thrift field " + name + " is not a boolean");
        }
        return fieldType == BOOLEAN_TRUE;
    }

    /** Checks that the current field is of {@code type}. */
    public void expect(int type, String name) throws IOException {
        if (fieldType != type) {
            throw new IOException(
                    "Thrift field " + name + " has type " + fieldType + ", expected " + type);
        }
    }

    /**
     * Reads a list header of the current field (checked to be a list) and returns its size; the
     * elements follow, of {@link #listElementType()}.
     */
    public int readListHeader(String name) throws IOException {
        expect(LIST, name);
        int size = listHeader();
        // Every element takes at least one byte: a larger count is damage, not a big list.
        if (size > end - pos) {
            throw new IOException("Thrift list " + name + " claims " + size + " elements");
        }
        return size;
    }

    public int listElementType() {
        return listElementType;
    }

    /** Checks the element type of the list whose header was just read. */
    public void expectElements(int type, String name) throws IOException {
        if (listElementType != type) {
            throw new IOException(
                    "Thrift list "
                            + name
                            + " holds elements of type "
                            + listElementType
                            + ", expected "
                            + type);
        }
    }

    /** Skips one value of a compact type. */
    public void skip(int type) throws IOException {
        skip(type, 0);
    }

    private void skip(int type, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IOException("Thrift structure nests deeper than " + MAX_DEPTH + " levels");
        }
        switch (type) {
            case BOOLEAN_TRUE, BOOLEAN_FALSE -> {}
            case BYTE -> advance(1);
            case I16, I32, I64 -> readVarint();
            case DOUBLE -> advance(8);
            case BINARY -> advance(length(readVarint()));
            case LIST, SET -> {
                int size = listHeader();
                int element = listElementType;
                for (int i = 0; i < size; i++) {
                    // Booleans inside collections take one byte each.
                    if (element == BOOLEAN_TRUE || element == BOOLEAN_FALSE) {
                        advance(1);
                    } else {
                        skip(element, depth + 1);
                    }
                }
            }
            case MAP -> {
                int size = length(readVarint());
                if (size > 0) {
                    int kinds = readByte() & 0xff;
                    for (int i = 0; i < size; i++) {
                        skip(kinds >>> 4, depth + 1);
                        skip(kinds & 0x0f, depth + 1);
                    }
                }
            }
            case STRUCT -> {
                int outer = beginStruct();
                int outerType = fieldType;
                while (nextField()) {
                    skip(fieldType, depth + 1);
                }
                endStruct(outer);
                fieldType = outerType;
            }
            default -> throw new IOException("Thrift data holds unknown type " + type);
        }
    }

    /** Reads a list or set header: returns its size, keeps its {@link #listElementType()}. */
    private int listHeader() throws IOException {
        int header = readByte() & 0xff;
        listElementType = header & 0x0f;
        return header >>> 4 == 15 ? length(readVarint()) : header >>> 4;
    }

    private int length(long value) throws IOException {
        if (value < 0 || value > end - pos) {
            throw new IOException("Thrift length " + value + " runs past its bytes");
        }
        return (int) value;
    }

    private void advance(int n) throws IOException {
        if (n > end - pos) {
            throw new IOException("Thrift data is truncated");
        }
        pos += n;
    }

    private byte readByte() throws IOException {
        if (pos >= end) {
            throw new IOException("Thrift data is truncated");
        }
        return bytes[pos++];
    }

    private long readVarint() throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = readByte();
            result |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return result;
            }
        }
        throw new IOException("Thrift varint longer than 10 bytes");
    }

    private static int zigzag(int n) {
        return (n >>> 1) ^ -(n & 1);
    }

    private static long zigzagLong(long n) {
        return (n >>> 1) ^ -(n & 1);
    }
}
