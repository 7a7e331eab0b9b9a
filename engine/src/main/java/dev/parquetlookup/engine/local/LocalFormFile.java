package dev.parquetlookup.engine.local;

import dev.parquetlookup.io.FileId;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Properties;
import java.util.zip.CRC32C;

/**
 * Where one source file's local form lives and how it is believed: {@code <hash>.parquet} next to
 * {@code <hash>.manifest}, the hash taken over the source's identity (path, length, modification
 * time, ETag). The manifest is written last, after the data file was renamed into place, and names
 * the source's identity, the data file's length and its CRC32C: a form without a manifest, of
 * another identity, of another length or whose bytes do not match the CRC is not believed.
 *
 * <p>Example: {@code LocalFormFile.of(dir, id).manifest()} reads {@code dir/3f2a...e1.manifest}, or
 * null when there is none.
 */
record LocalFormFile(Path data, Path manifestPath) {

    static final String DATA_SUFFIX = ".parquet";
    static final String MANIFEST_SUFFIX = ".manifest";

    /** The local form of {@code source} below {@code directory}. */
    static LocalFormFile of(Path directory, FileId source) {
        String name = hash(source);
        return new LocalFormFile(
                directory.resolve(name + DATA_SUFFIX), directory.resolve(name + MANIFEST_SUFFIX));
    }

    /** Where the data file is written before it is renamed into place. */
    Path temporary() {
        return data.resolveSibling(data.getFileName() + ".tmp");
    }

    /**
     * What a manifest says.
     *
     * @param source the source file's identity
     * @param length the data file's length
     * @param crc32c the CRC32C of the data file's bytes
     * @param rows rows in the file
     */
    record Manifest(FileId source, long length, long crc32c, long rows) {

        /** Whether this manifest is about {@code id} (same path, length, time and ETag). */
        boolean describes(FileId id) {
            return source.equals(id);
        }
    }

    /** The manifest, or null when there is none or it cannot be parsed. */
    @Nullable
    Manifest manifest() {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(manifestPath)) {
            p.load(in);
            String etag = p.getProperty("source.etag");
            FileId source =
                    new FileId(
                            Objects.requireNonNull(p.getProperty("source.path")),
                            Long.parseLong(p.getProperty("source.length")),
                            Long.parseLong(p.getProperty("source.modification-time")),
                            etag == null || etag.isEmpty() ? null : etag,
                            null);
            return new Manifest(
                    source,
                    Long.parseLong(p.getProperty("length")),
                    Long.parseLong(p.getProperty("crc32c")),
                    Long.parseLong(p.getProperty("rows")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Writes the manifest (to a temporary file renamed into place). */
    void writeManifest(Manifest m) throws IOException {
        Properties p = new Properties();
        p.setProperty("source.path", m.source().path());
        p.setProperty("source.length", Long.toString(m.source().length()));
        p.setProperty("source.modification-time", Long.toString(m.source().modificationTime()));
        p.setProperty("source.etag", m.source().etag() == null ? "" : m.source().etag());
        p.setProperty("length", Long.toString(m.length()));
        p.setProperty("crc32c", Long.toString(m.crc32c()));
        p.setProperty("rows", Long.toString(m.rows()));
        Path tmp = manifestPath.resolveSibling(manifestPath.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            p.store(out, "parquet-lookup local form");
        }
        move(tmp, manifestPath);
    }

    /**
     * Whether the data file is the one {@code m} describes: its length and, when {@code
     * checkBytes}, the CRC32C of all its bytes.
     */
    boolean matches(Manifest m, boolean checkBytes) throws IOException {
        if (!Files.isRegularFile(data) || Files.size(data) != m.length()) {
            return false;
        }
        return !checkBytes || crc32c(data) == m.crc32c();
    }

    /** The data file as the engine opens it (a {@code file:} URI, its length and time). */
    FileId fileId() throws IOException {
        return new FileId(
                data.toUri().toString(),
                Files.size(data),
                Files.getLastModifiedTime(data).toMillis());
    }

    /** Deletes the data file, the manifest and a temporary file left over; best effort. */
    void delete() {
        for (Path p : new Path[] {manifestPath, data, temporary()}) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // A file left behind is found again (no manifest: not believed) and replaced.
            }
        }
    }

    /** CRC32C of a file's bytes, read sequentially in 1 MiB blocks. */
    static long crc32c(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return crc.getValue();
    }

    static void move(Path from, Path to) throws IOException {
        try {
            Files.move(
                    from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** 32 hex digits of the SHA-256 of the identity: stable across JVMs, safe as a file name. */
    private static String hash(FileId id) {
        String identity =
                id.path()
                        + '\n'
                        + id.length()
                        + '\n'
                        + id.modificationTime()
                        + '\n'
                        + (id.etag() == null ? "" : id.etag());
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256")
                            .digest(identity.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
