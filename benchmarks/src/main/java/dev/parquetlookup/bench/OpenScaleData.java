package dev.parquetlookup.bench;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Owns the files of {@link OpenScaleCase}: many small files, one big file with a large page index
 * ({@code k BIGINT}, {@code v} = {@code "v-" + k}), written once below the output directory and
 * uploaded to S3Proxy.
 */
final class OpenScaleData {

    private OpenScaleData() {}

    static void writeSmall(Path dir, int files, int rows) throws IOException {
        if (Files.isDirectory(dir)) {
            try (var list = Files.list(dir)) {
                if (list.count() == files) {
                    return;
                }
            }
        }
        Files.createDirectories(dir);
        for (int f = 0; f < files; f++) {
            write(
                    dir.resolve(String.format(Locale.ROOT, "part-%05d.parquet", f)),
                    (long) f * rows,
                    rows,
                    WriterOptions.defaults());
        }
    }

    /**
     * 32-row pages and 20,000-row row groups: a page index of a few hundred KB per million rows.
     */
    static void writeBig(Path dir, int rows) throws IOException {
        Path file = dir.resolve("part-0.parquet");
        if (Files.exists(file)) {
            return;
        }
        Files.createDirectories(dir);
        write(
                file,
                0,
                rows,
                WriterOptions.builder()
                        .rowsPerPage(32)
                        .rowsPerRowGroup(20_000)
                        .dictionary(false)
                        .build());
    }

    private static void write(Path file, long first, int rows, WriterOptions options)
            throws IOException {
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(ValueType.Kind.STRING))),
                        List.of("k"),
                        options)) {
            for (long k = first; k < first + rows; k++) {
                writer.write(new Object[] {k, value(k)});
            }
        }
    }

    private static byte[] value(long k) {
        return ("v-" + k).getBytes(StandardCharsets.UTF_8);
    }

    static void upload(Map<String, String> hadoop, Path dir, String target) throws IOException {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        conf.set("fs.s3a.fast.upload.buffer", "bytebuffer");
        try (FileSystem fs = FileSystem.newInstance(URI.create(target), conf);
                var list = Files.list(dir)) {
            for (Path p : list.sorted().toList()) {
                try (OutputStream out =
                        fs.create(new org.apache.hadoop.fs.Path(target + p.getFileName()), true)) {
                    Files.copy(p, out);
                }
            }
        }
    }

    /** The metadata reads opening did before the lazy index: footer, then the index region. */
}
