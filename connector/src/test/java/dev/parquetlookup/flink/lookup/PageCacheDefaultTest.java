package dev.parquetlookup.flink.lookup;

import org.apache.flink.configuration.MemorySize;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The page cache's default bound: an eighth of the heap, capped, and the explicit settings. */
class PageCacheDefaultTest {

    @Test
    void theDefaultIsAnEighthOfTheHeapAtMostOneGibibyte() {
        assertThat(ParquetLookupConfig.autoPageCacheBytes(512L << 20)).isEqualTo(64L << 20);
        assertThat(ParquetLookupConfig.autoPageCacheBytes(4L << 30)).isEqualTo(512L << 20);
        assertThat(ParquetLookupConfig.autoPageCacheBytes(64L << 30)).isEqualTo(1L << 30);
        assertThat(ParquetLookupConfig.autoPageCacheBytes((100L << 20) + 12345))
                .as("rounded down to MiB")
                .isEqualTo(12L << 20);
    }

    @Test
    void theBuilderDefaultsToAutomaticAndKeepsExplicitBounds() {
        ParquetLookupConfig auto = ParquetLookupConfig.builder("t", "/data/t").build();
        assertThat(auto.pageCacheMaxBytes()).isEqualTo(ParquetLookupConfig.PAGE_CACHE_AUTO);
        assertThat(auto.resolvedPageCacheMaxBytes())
                .isEqualTo(
                        ParquetLookupConfig.autoPageCacheBytes(Runtime.getRuntime().maxMemory()));
        ParquetLookupConfig off =
                ParquetLookupConfig.builder("t", "/data/t")
                        .set(ParquetLookupOptions.PAGE_CACHE_MAX_BYTES, new MemorySize(0))
                        .build();
        assertThat(off.resolvedPageCacheMaxBytes()).isZero();
        ParquetLookupConfig set =
                ParquetLookupConfig.builder("t", "/data/t")
                        .set(ParquetLookupOptions.PAGE_CACHE_MAX_BYTES, new MemorySize(5 << 20))
                        .build();
        assertThat(set.resolvedPageCacheMaxBytes()).isEqualTo(5 << 20);
        assertThatThrownBy(
                        () ->
                                ParquetLookupConfig.builder("t", "/data/t")
                                        .option("page-cache.max-bytes", "-2")
                                        .build())
                .hasMessageContaining("page-cache.max-bytes");
    }
}
