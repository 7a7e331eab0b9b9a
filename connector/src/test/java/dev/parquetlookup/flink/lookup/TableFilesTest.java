package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.flink.table.TestDimension;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.flink.configuration.MemorySize;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Planning-time reads of the files. */
class TableFilesTest {

    @TempDir Path dir;

    @Test
    void inspectionAndKeySamplingParseEachFooterOnce() throws Exception {
        TestDimension data = TestDimension.generate(9L, 50, 0);
        data.write(dir, 3);
        long bound = 3_000_017; // a planning cache no other test uses
        ParquetLookupConfig config =
                ParquetLookupConfig.builder("t", dir.toUri().toString())
                        .set(ParquetLookupOptions.METADATA_CACHE_MAX_BYTES, new MemorySize(bound))
                        .set(ParquetLookupOptions.MAX_RETRIES, 0)
                        .build();

        TableFiles files = TableFiles.inspect(config);
        List<Object[]> samples = TableFiles.sampleKeys(config, 16);

        assertThat(files.sortKey()).containsExactly("g", "name");
        assertThat(files.description()).contains("3 files, first ");
        MetadataCache.Stats stats = SharedCaches.forPlanning(bound).stats();
        assertThat(stats.misses()).isEqualTo(3);
        assertThat(stats.hits()).isGreaterThanOrEqualTo(3); // parsed once, reused after
        // one sample per page minimum (this small table has fewer pages than the target)
        assertThat(samples).hasSizeBetween(3, 16).isSortedAccordingTo(KeyOrder::compare);
        assertThat(samples.get(0)[0]).isEqualTo(0L);
        assertThat(files.local()).isTrue();
    }

    @Test
    void filesUnderARemoteSchemeAreNotLocal() throws Exception {
        TestDimension data = TestDimension.generate(9L, 50, 0);
        data.write(dir, 2);
        ParquetLookupConfig remote =
                ParquetLookupConfig.builder("t", "remote://" + dir.toUri().getPath())
                        .option("hadoop.fs.remote.impl", RemoteLocalFileSystem.class.getName())
                        .set(ParquetLookupOptions.MAX_RETRIES, 0)
                        .build();
        assertThat(TableFiles.inspect(remote).local()).isFalse();
        // A plain path is a local file (the default file system is not consulted).
        ParquetLookupConfig plain =
                ParquetLookupConfig.builder("t", dir.toString())
                        .set(ParquetLookupOptions.MAX_RETRIES, 0)
                        .build();
        assertThat(TableFiles.inspect(plain).local()).isTrue();
    }
}
