package dev.parquetlookup.examples;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The seed dataset of the benchmarks ({@code shared/bench/PROTOCOL.md}): {@code k BIGINT} = 1..N,
 * unique and sorted, and {@code v STRING} = the lower-case hex MD5 of the decimal text of {@code
 * k}, written by {@link LookupFileWriter}. Deterministic: the same N and options give the same
 * file.
 *
 * <pre>{@code
 * Path file = SeedDataset.write(Path.of("/tmp/seed-1m.parquet"), 1_000_000, WriterOptions.defaults());
 * SeedDataset.value(1);   // "c4ca4238a0b923820dcc509a6f75849b"
 * }</pre>
 *
 * <p>Command line: {@code SeedDataset OUT.parquet [--rows N]} (default 10,000,000 rows, the
 * writer's default layout).
 */
public final class SeedDataset {

    /** The columns: {@code k BIGINT NOT NULL, v STRING NOT NULL}, sorted by {@code k}. */
    public static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("v", ValueType.of(Kind.STRING)));

    private static final HexFormat HEX = HexFormat.of();

    private SeedDataset() {}

    /** The value of key {@code k}: lower-case hex MD5 of {@code Long.toString(k)}. */
    public static String value(long k) {
        return HEX.formatHex(md5().digest(Long.toString(k).getBytes(StandardCharsets.US_ASCII)));
    }

    /**
     * Writes rows {@code k = 1..rows} to {@code file} (replacing it) and returns it. The file is
     * written beside as a temporary file and moved into place, so an interrupted run never leaves a
     * half-written file under the final name.
     */
    public static Path write(Path file, long rows, WriterOptions options) throws IOException {
        if (rows < 1) {
            throw new IllegalArgumentException("rows must be at least 1, got " + rows);
        }
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temp = parent.resolve("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        MessageDigest md5 = md5();
        byte[] digest = new byte[16];
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        temp.toString(),
                        COLUMNS,
                        List.of("k"),
                        options.toBuilder().overwrite(true).build())) {
            for (long k = 1; k <= rows; k++) {
                md5.update(Long.toString(k).getBytes(StandardCharsets.US_ASCII));
                try {
                    md5.digest(digest, 0, 16);
                } catch (java.security.DigestException e) {
                    throw new IllegalStateException(e);
                }
                writer.write(
                        new Object[] {
                            k, HEX.formatHex(digest).getBytes(StandardCharsets.US_ASCII)
                        });
            }
        }
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    /** Like {@link #write(Path, long, WriterOptions)} with {@link WriterOptions#defaults()}. */
    public static Path write(Path file, long rows) throws IOException {
        return write(file, rows, WriterOptions.defaults());
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JVM", e);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1 && !(args.length == 3 && args[1].equals("--rows"))) {
            System.err.println("Usage: SeedDataset OUT.parquet [--rows N]   (default 10000000)");
            System.exit(2);
        }
        long rows = args.length == 3 ? Args.parseCount(args[2]) : 10_000_000L;
        long start = System.nanoTime();
        Path file = write(Path.of(args[0]), rows);
        System.out.printf(
                "Wrote %,d rows to %s (%,d bytes) in %.1f s%n",
                rows, file, Files.size(file), (System.nanoTime() - start) / 1e9);
    }
}
