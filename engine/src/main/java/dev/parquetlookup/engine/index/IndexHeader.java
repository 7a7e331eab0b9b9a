package dev.parquetlookup.engine.index;

import dev.parquetlookup.io.FileId;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a key index file says it indexes: the data file's identity (path, length, modification time,
 * ETag), the key columns and their Parquet types, and the file's row count. An index whose header
 * differs from what a lookup expects is never used (it is rebuilt).
 *
 * <p>Example: {@code new IndexHeader("s3a://b/t/part-0.parquet", 1048576, 1700000000000L,
 * "\"9b2c\"", List.of("id"), List.of("required int64 id"), 1000000)}.
 *
 * @param etag the store's ETag, or empty where the file system has none
 * @param keyTypes each key column's Parquet type as parquet-java prints it
 */
public record IndexHeader(
        String path,
        long length,
        long modificationTime,
        String etag,
        List<String> keyColumns,
        List<String> keyTypes,
        long rowCount) {

    public IndexHeader {
        keyColumns = List.copyOf(keyColumns);
        keyTypes = List.copyOf(keyTypes);
    }

    /** The header of an index of {@code file} by {@code keyColumns} of {@code keyTypes}. */
    public static IndexHeader of(
            FileId file, List<String> keyColumns, List<String> keyTypes, long rowCount) {
        return new IndexHeader(
                file.path(),
                file.length(),
                file.modificationTime(),
                file.etag() == null ? "" : file.etag(),
                keyColumns,
                keyTypes,
                rowCount);
    }

    byte[] encode() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(path);
            out.writeLong(length);
            out.writeLong(modificationTime);
            out.writeUTF(etag);
            out.writeInt(keyColumns.size());
            for (int i = 0; i < keyColumns.size(); i++) {
                out.writeUTF(keyColumns.get(i));
                out.writeUTF(keyTypes.get(i));
            }
            out.writeLong(rowCount);
        }
        return bytes.toByteArray();
    }

    static IndexHeader decode(byte[] bytes) throws IOException {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
            String path = in.readUTF();
            long length = in.readLong();
            long modificationTime = in.readLong();
            String etag = in.readUTF();
            int keys = in.readInt();
            if (keys < 1 || keys > 64) {
                throw new IOException("implausible key column count " + keys);
            }
            List<String> columns = new ArrayList<>(keys);
            List<String> types = new ArrayList<>(keys);
            for (int i = 0; i < keys; i++) {
                columns.add(in.readUTF());
                types.add(in.readUTF());
            }
            return new IndexHeader(
                    path, length, modificationTime, etag, columns, types, in.readLong());
        }
    }
}
