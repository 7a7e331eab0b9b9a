package dev.parquetlookup.bench;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.apache.hadoop.conf.Configuration;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Properties;

/**
 * The seed dataset ({@code k BIGINT} 1..N, {@code v} = hex MD5 of the decimal text of k), written
 * once per {@link SeedLayout} and cached under {@code OUT/data/}; a later run with the same
 * parameters reuses the file (a sidecar {@code .properties} records them and the file length).
 *
 * <p>Deterministic: the same layout always gives the same rows in the same order. Sorted files are
 * written by the project's {@link LookupFileWriter} (sort key {@code k} declared in the footer).
 */
public final class SeedDataset {

    /** Bumped whenever the bytes a layout produces change, so old cached files are not reused. */
    static final String GENERATOR = "lookup-file-writer-1";

    static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message seed { required int64 k; required binary v (STRING); }");

    private SeedDataset() {}

    /** The file for {@code layout}, generated if it is not cached yet. */
    public static Path get(Path out, SeedLayout layout, PrintStream log) throws IOException {
        Path dir = out.resolve("data");
        Files.createDirectories(dir);
        Path file = dir.resolve("seed-" + layout.id() + ".parquet");
        Path sidecar = dir.resolve("seed-" + layout.id() + ".properties");
        if (Files.exists(file) && Files.exists(sidecar)) {
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(sidecar, StandardCharsets.UTF_8)) {
                p.load(in);
            }
            if (layout.id().equals(p.getProperty("layout"))
                    && GENERATOR.equals(p.getProperty("generator"))
                    && Long.toString(Files.size(file)).equals(p.getProperty("length"))) {
                return file;
            }
        }
        long start = System.nanoTime();
        Path tmp = dir.resolve(".tmp-" + layout.id() + ".parquet");
        Files.deleteIfExists(tmp);
        if (layout.sorted()) {
            writeSorted(tmp, layout);
        } else {
            writeUnsorted(tmp, layout);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Properties p = new Properties();
        p.setProperty("layout", layout.id());
        p.setProperty("generator", GENERATOR);
        p.setProperty("length", Long.toString(Files.size(file)));
        try (var w = Files.newBufferedWriter(sidecar, StandardCharsets.UTF_8)) {
            p.store(w, "seed dataset parameters; delete to regenerate");
        }
        log.printf(
                "NOTE generated %s (%d bytes) in %.1f s%n",
                file.getFileName(), Files.size(file), (System.nanoTime() - start) / 1e9);
        return file;
    }

    /**
     * The rows of {@code layout} (unsorted: in its scrambled order) split into {@code files}
     * consecutive parts, one file each, in a directory cached like single files.
     */
    public static Path split(Path out, SeedLayout layout, int files, PrintStream log)
            throws IOException {
        if (layout.sorted()) {
            throw new IllegalArgumentException("split seed files are written unsorted");
        }
        Path dir = out.resolve("data").resolve("seed-" + layout.id() + "-files" + files);
        // Beside the directory: the connector reads every file in it.
        Path done = dir.resolveSibling(dir.getFileName() + ".done");
        if (Files.exists(done)) {
            return dir;
        }
        long start = System.nanoTime();
        Files.createDirectories(dir);
        for (int f = 0; f < files; f++) {
            Path part = dir.resolve(String.format("part-%03d.parquet", f));
            writeUnsorted(part, layout, layout.rows() * f / files, layout.rows() * (f + 1) / files);
        }
        Files.writeString(done, layout.id() + " " + GENERATOR);
        log.printf(
                "NOTE generated %s (%d files, %d bytes) in %.1f s%n",
                dir.getFileName(), files, bytes(dir), (System.nanoTime() - start) / 1e9);
        return dir;
    }

    /** Bytes of a file, or of the Parquet files of a directory. */
    static long bytes(Path path) throws IOException {
        if (!Files.isDirectory(path)) {
            return Files.size(path);
        }
        long sum = 0;
        try (var files = Files.list(path)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".parquet")).toList()) {
                sum += Files.size(p);
            }
        }
        return sum;
    }

    /** The project's own writer, as users are told to write lookup files. */
    private static void writeSorted(Path target, SeedLayout layout) throws IOException {
        WriterOptions options =
                WriterOptions.builder()
                        .rowsPerRowGroup(layout.rowsPerRowGroup())
                        .rowsPerPage(layout.rowsPerPage())
                        .dictionary(layout.dictionary())
                        .codec(WriterOptions.Codec.valueOf(layout.codec().name()))
                        // The writer leaves keys uncompressed unless told; the protocol does not.
                        .codec(
                                "k",
                                layout.keyUncompressed()
                                        ? WriterOptions.Codec.UNCOMPRESSED
                                        : WriterOptions.Codec.valueOf(layout.codec().name()))
                        .pageIndex(layout.pageIndex())
                        .overwrite(true)
                        .build();
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT)),
                        ColumnSpec.required("v", ValueType.of(ValueType.Kind.STRING)));
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        target.toAbsolutePath().toString(), columns, List.of("k"), options)) {
            for (long k = 1; k <= layout.rows(); k++) {
                writer.write(new Object[] {k, Md5Hex.bytes(k)});
            }
        }
    }

    /**
     * Unsorted files come from parquet-java's writer: ours refuses unsorted input by design (and
     * the engine refuses unsorted files), so these serve the peers' side of the sorted/unsorted
     * knob.
     */
    private static void writeUnsorted(Path target, SeedLayout layout) throws IOException {
        writeUnsorted(target, layout, 0, layout.rows());
    }

    /** Rows {@code [from, to)} of the scrambled order. */
    private static void writeUnsorted(Path target, SeedLayout layout, long from, long to)
            throws IOException {
        if (!layout.pageIndex()) {
            throw new IllegalArgumentException("unsorted seed files are written with a page index");
        }
        Scramble scramble = new Scramble(layout.rows());
        try (ParquetWriter<Long> writer =
                new Builder(new LocalOutputFile(target))
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(layout.codec())
                        .withCompressionCodec(
                                "k",
                                layout.keyUncompressed()
                                        ? CompressionCodecName.UNCOMPRESSED
                                        : layout.codec())
                        .withDictionaryEncoding(layout.dictionary())
                        .withRowGroupRowCountLimit(layout.rowsPerRowGroup())
                        .withPageRowCountLimit(layout.rowsPerPage())
                        // Row limits decide; byte limits only as a backstop.
                        .withRowGroupSize(1L << 40)
                        .withPageSize(64 << 20)
                        .withDictionaryPageSize(64 << 20)
                        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                        .withStatisticsTruncateLength(Integer.MAX_VALUE)
                        .build()) {
            for (long i = from; i < to; i++) {
                writer.write(scramble.apply(i) + 1);
            }
        }
    }

    private static final class Builder extends ParquetWriter.Builder<Long, Builder> {
        Builder(OutputFile file) {
            super(file);
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Long> getWriteSupport(Configuration conf) {
            return new SeedWriteSupport();
        }
    }

    /** Writes one row per key: {@code k} and its MD5 hex text. */
    static final class SeedWriteSupport extends WriteSupport<Long> {
        private RecordConsumer consumer;

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(SCHEMA, new HashMap<>());
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
        }

        @Override
        public void write(Long k) {
            consumer.startMessage();
            consumer.startField("k", 0);
            consumer.addLong(k);
            consumer.endField("k", 0);
            consumer.startField("v", 1);
            consumer.addBinary(Binary.fromConstantByteArray(Md5Hex.bytes(k)));
            consumer.endField("v", 1);
            consumer.endMessage();
        }
    }
}
