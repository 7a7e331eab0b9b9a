package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.flink.lookup.DiskTierConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;

import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The disk tier's options: defaults, values read, bad values named. */
class DiskTierOptionsTest {

    private static ParquetLookupConfig config(Map<String, String> options) {
        return ParquetLookupDynamicTableFactory.toConfig("dim", options);
    }

    @Test
    void defaultsAreOneGibibyteBelowTheTmpDirsAndWarmupAll() {
        DiskTierConfig tier = config(Map.of("path", "s3a://b/d/")).diskTier();
        assertThat(tier.directory()).isNull();
        assertThat(tier.maxBytes()).isEqualTo(1L << 30);
        assertThat(tier.warmup()).isEqualTo(TableWarmup.Mode.ALL);
        assertThat(tier.enabled()).isTrue();
    }

    @Test
    void everyOptionIsRead() {
        DiskTierConfig tier =
                config(
                                Map.of(
                                        "path", "s3a://b/d/",
                                        "local-cache.dir", "/mnt/ssd/cache",
                                        "local-cache.max-bytes", "20gb",
                                        "warmup", "key-columns"))
                        .diskTier();
        assertThat(tier.directory()).isEqualTo("/mnt/ssd/cache");
        assertThat(tier.maxBytes()).isEqualTo(20L << 30);
        assertThat(tier.warmup()).isEqualTo(TableWarmup.Mode.KEY_COLUMNS);
        assertThat(config(Map.of("path", "/p", "local-cache.max-bytes", "0")).diskTier().enabled())
                .isFalse();
        assertThat(config(Map.of("path", "/p", "warmup", "NONE")).diskTier().warmup())
                .isEqualTo(TableWarmup.Mode.NONE);
    }

    @Test
    void anUnknownWarmupIsRejectedNamingTheChoices() {
        assertThatThrownBy(() -> config(Map.of("path", "/p", "warmup", "everything")))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Table 'dim': Unknown warmup 'everything': use 'none', 'key-columns' or"
                                + " 'all'.");
    }
}
