package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.testing.S3RequestLog;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key samples for a key-range shuffle ({@link DimensionTable#leadingKeySamples()}) on {@code
 * s3a://} files whose page index is read lazily: sampling sends no request, so planning costs the
 * open's one GET per file, however many row groups the files have; a row group whose index a lookup
 * already loaded gives its page minimums.
 */
class S3KeySamplesITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "samples-bucket";
    private static final String DIM = "s3a://" + BUCKET + "/dim/";
    private static final int FILES = 2;
    private static final int ROWS_PER_FILE = 50_000;
    private static final int ROWS_PER_ROW_GROUP = 10_000;
    private static final int ROWS_PER_PAGE = 500;

    @TempDir static Path local;

    private static Map<String, String> hadoop;

    @BeforeAll
    static void uploadFiles() throws IOException {
        S3.createBucket(BUCKET);
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        // S3A's streams read the files, so that S3A's audit log sees every GET (the S3 store's
        // client sends its own, counted at a proxy in S3AsyncLookupITCase).
        hadoop.put("parquet-lookup.s3.async-reads", "false");
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.optional("v", ValueType.of(Kind.STRING)));
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
            for (int f = 0; f < FILES; f++) {
                String name = "part-" + f + ".parquet";
                Path file = local.resolve(name);
                WriterOptions options =
                        WriterOptions.builder()
                                .rowsPerRowGroup(ROWS_PER_ROW_GROUP)
                                .rowsPerPage(ROWS_PER_PAGE)
                                .build();
                try (LookupFileWriter w =
                        LookupFileWriter.open(file.toString(), columns, List.of("k"), options)) {
                    for (long i = 0; i < ROWS_PER_FILE; i++) {
                        long k = 3 * (f * (long) ROWS_PER_FILE + i);
                        w.write(new Object[] {k, "v" + k});
                    }
                }
                fs.copyFromLocalFile(
                        new org.apache.hadoop.fs.Path(file.toUri()),
                        new org.apache.hadoop.fs.Path(DIM + name));
            }
        }
    }

    private static TableConfig config() {
        return TableConfig.builder(DIM)
                .sortKey(List.of("k"))
                .hadoopOptions(hadoop)
                .metadataCache(new MetadataCache(64L << 20))
                .build();
    }

    @Test
    void samplingSendsNoRequestBeyondTheOpenAndSpreadsOverEveryRowGroup() throws IOException {
        S3RequestLog.clear();
        try (DimensionTable table = DimensionTable.open(config())) {
            long openGets = S3RequestLog.count("GET", "/dim/part-");
            assertThat(openGets).as("GETs to open %d files", FILES).isEqualTo(FILES);

            List<Object> samples = table.leadingKeySamples();

            assertThat(S3RequestLog.count("GET", "/dim/part-"))
                    .as("GETs after sampling: the open's only")
                    .isEqualTo(openGets);
            long maxKey = 3L * (FILES * (long) ROWS_PER_FILE - 1);
            assertThat(samples.get(0)).isEqualTo(0L);
            assertThat(samples.get(samples.size() - 1)).isEqualTo(maxKey);
            assertThat(samples).isSortedAccordingTo((a, b) -> Long.compare((Long) a, (Long) b));
            // Statistics of 10 row groups, spread in proportion to their rows: far more than the
            // 20 row-group bounds, and every row group holds some.
            assertThat(samples).hasSizeGreaterThan(KeySamples.INTERPOLATED / 2);
            int rowGroups = FILES * ROWS_PER_FILE / ROWS_PER_ROW_GROUP;
            long span = 3L * ROWS_PER_ROW_GROUP;
            for (int r = 0; r < rowGroups; r++) {
                long lo = r * span;
                long hi = lo + span;
                assertThat(samples.stream().filter(s -> (Long) s >= lo && (Long) s < hi).count())
                        .as("samples in row group %d", r)
                        .isGreaterThan(KeySamples.INTERPOLATED / rowGroups / 2);
            }
        }
    }

    @Test
    void aRowGroupWhoseIndexIsLoadedGivesItsPageMinimums() throws IOException {
        try (DimensionTable table = DimensionTable.open(config())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            long inSecondRowGroup = 3L * (ROWS_PER_ROW_GROUP + 7);
            assertThat(table.lookup(plan, new Object[] {inSecondRowGroup})).hasSize(1);
            S3RequestLog.clear();

            List<Object> samples = table.leadingKeySamples();

            assertThat(S3RequestLog.count("GET", "/dim/part-")).isZero();
            for (int p = 0; p < ROWS_PER_ROW_GROUP / ROWS_PER_PAGE; p++) {
                long pageMin = 3L * (ROWS_PER_ROW_GROUP + (long) p * ROWS_PER_PAGE);
                assertThat(samples).as("page %d of row group 1", p).contains(pageMin);
            }
        }
    }
}
