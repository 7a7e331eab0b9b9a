package dev.parquetlookup.bench;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;

import org.apache.hadoop.conf.Configuration;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The seed data (sorted, {@code k = 1..rows}, {@code v} its MD5 hex) with every page of the key
 * column dictionary-encoded, as pyarrow and Arrow C++ write unique keys until a chunk's dictionary
 * reaches their limit. parquet-java (and so our writer) gives up the dictionary of unique keys at
 * the first page, since it does not compress them; here the key column's writer never falls back.
 * The lookup layout otherwise: 131,072-row row groups, 1,024-row pages, LZ4_RAW, page index on;
 * {@code v} PLAIN.
 */
final class DictionaryKeyFile {

    private DictionaryKeyFile() {}

    /** The file for {@code layout}'s rows under {@code out/data}, written once. */
    static Path get(Path out, SeedLayout layout, PrintStream log) throws IOException {
        Path file =
                out.resolve("data")
                        .resolve("dictkeys-" + layout.id() + ".parquet")
                        .toAbsolutePath();
        if (Files.exists(file)) {
            return file;
        }
        Files.createDirectories(file.getParent());
        long start = System.nanoTime();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Builder builder =
                new Builder(new LocalOutputFile(tmp))
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(layout.codec())
                        .withDictionaryEncoding("v", false)
                        .withRowGroupRowCountLimit(layout.rowsPerRowGroup())
                        .withPageRowCountLimit(layout.rowsPerPage())
                        .withRowGroupSize(1L << 40)
                        .withPageSize(64 << 20)
                        .withDictionaryPageSize(64 << 20)
                        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                        .withStatisticsTruncateLength(Integer.MAX_VALUE);
        alwaysDictionaryKeys(builder);
        try (ParquetWriter<Long> writer = builder.build()) {
            for (long k = 1; k <= layout.rows(); k++) {
                writer.write(k);
            }
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        log.printf(
                "NOTE generated %s (%d bytes) in %.1f s%n",
                file.getFileName(), Files.size(file), (System.nanoTime() - start) / 1e9);
        return file;
    }

    /**
     * parquet-java's writer builder has no setter for the values-writer factory, so it is set on
     * the builder's encoding properties by reflection (benchmark data only).
     */
    private static void alwaysDictionaryKeys(Builder builder) throws IOException {
        try {
            Field f = ParquetWriter.Builder.class.getDeclaredField("encodingPropsBuilder");
            f.setAccessible(true);
            ((ParquetProperties.Builder) f.get(builder))
                    .withValuesWriterFactory(new DictionaryKeys());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("cannot make parquet-java dictionary-encode every key page", e);
        }
    }

    /** Column {@code k}: a dictionary writer without fallback; others as parquet-java decides. */
    private static final class DictionaryKeys implements ValuesWriterFactory {
        private final DefaultValuesWriterFactory others = new DefaultValuesWriterFactory();
        private ParquetProperties properties;

        @Override
        public void initialize(ParquetProperties properties) {
            this.properties = properties;
            others.initialize(properties);
        }

        @Override
        public ValuesWriter newValuesWriter(ColumnDescriptor descriptor) {
            if (descriptor.getPath()[0].equals("k")) {
                return new DictionaryValuesWriter.PlainLongDictionaryValuesWriter(
                        Integer.MAX_VALUE,
                        Encoding.RLE_DICTIONARY,
                        Encoding.PLAIN,
                        properties.getAllocator());
            }
            return others.newValuesWriter(descriptor);
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
            return new SeedDataset.SeedWriteSupport();
        }
    }
}
