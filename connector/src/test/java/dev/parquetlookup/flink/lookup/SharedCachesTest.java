package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;

import org.apache.flink.configuration.MemorySize;

import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

class SharedCachesTest {

    // Bounds no other test uses, so the JVM-wide registry starts empty for them.
    private static final long META = 12_345_678L;
    private static final long PAGES = 7_654_321L;

    @Test
    void functionsInOneJvmShareOneCacheUntilTheLastCloses() {
        assertThat(SharedCaches.references(META)).isZero();
        SharedCaches.Lease first = SharedCaches.acquire(META, PAGES);
        SharedCaches.Lease second = SharedCaches.acquire(META, PAGES);

        assertThat(second.metadataCache()).isSameAs(first.metadataCache());
        assertThat(second.pageCache()).isSameAs(first.pageCache());
        assertThat(first.metadataCache().maxBytes()).isEqualTo(META);
        assertThat(first.pageCache().maxBytes()).isEqualTo(PAGES);
        assertThat(SharedCaches.references(META)).isEqualTo(2);

        first.close();
        first.close(); // closing twice releases once
        assertThat(SharedCaches.references(META)).isEqualTo(1);
        second.close();
        assertThat(SharedCaches.references(META)).isZero();

        try (SharedCaches.Lease third = SharedCaches.acquire(META, 0)) {
            assertThat(third.metadataCache()).isNotSameAs(first.metadataCache());
            assertThat(third.pageCache()).isNull();
        }
    }

    @Test
    void functionsWithTheSameHadoopOptionsShareOneFileStoreUntilTheLastCloses() throws IOException {
        Map<String, String> options = Map.of("fs.test.shared-store", "1");
        SharedCaches.StoreLease first = SharedCaches.fileStore(options, true);
        SharedCaches.StoreLease second = SharedCaches.fileStore(new TreeMap<>(options), true);
        SharedCaches.StoreLease other = SharedCaches.fileStore(options, false);
        try {
            assertThat(second.shared()).isSameAs(first.shared());
            assertThat(other.shared()).isNotSameAs(first.shared());
            // A table closing the store it was given leaves the shared one open.
            first.store().close();
            second.store().close();
            first.close();
            first.close(); // once
            try (SharedCaches.StoreLease third = SharedCaches.fileStore(options, true)) {
                assertThat(third.shared()).isSameAs(second.shared());
            }
        } finally {
            second.close();
            other.close();
        }
        try (SharedCaches.StoreLease fresh = SharedCaches.fileStore(options, true)) {
            assertThat(fresh.shared()).isNotSameAs(first.shared());
        }
    }

    @Test
    void planningHasOneLastingCachePerBound() {
        assertThat(SharedCaches.forPlanning(META + 3)).isSameAs(SharedCaches.forPlanning(META + 3));
        assertThat(SharedCaches.forPlanning(META + 3).maxBytes()).isEqualTo(META + 3);
        assertThat(SharedCaches.references(META + 3)).isZero(); // not a runtime lease
    }

    @Test
    void metadataCacheMustBePositive() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                ParquetLookupConfig.builder("t", "/p")
                                        .set(
                                                ParquetLookupOptions.METADATA_CACHE_MAX_BYTES,
                                                new MemorySize(0))
                                        .set(ParquetLookupOptions.MAX_RETRIES, 0)
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "'metadata-cache.max-bytes' must be positive, got 0 (footers and page"
                                + " indexes must be kept to serve lookups).");
    }

    @Test
    void differentBoundsGetDifferentCaches() {
        try (SharedCaches.Lease a = SharedCaches.acquire(META + 1, 0);
                SharedCaches.Lease b = SharedCaches.acquire(META + 2, 0)) {
            assertThat(a.metadataCache()).isNotSameAs(b.metadataCache());
        }
    }

    /**
     * A file system that is not the local one (as S3A is), over the local disk; enough for the
     * store to count a remote file system.
     */
    public static final class RemoteLikeFileSystem extends FilterFileSystem {
        public RemoteLikeFileSystem() {
            super(new RawLocalFileSystem());
        }

        @Override
        public String getScheme() {
            return "lingertest";
        }
    }

    @Test
    void aStoreWithARemoteFileSystemOutlivesItsLastLeaseForTheNextUser() throws Exception {
        Map<String, String> options =
                Map.of(
                        "fs.lingertest.impl",
                        RemoteLikeFileSystem.class.getName(),
                        "fs.test.linger",
                        "1");
        SharedCaches.StoreLease first = SharedCaches.fileStore(options, true);
        HadoopFileStore shared = first.shared();
        assertThat(shared.hasRemoteFileSystem()).isFalse();
        // Creates the file system (the stat itself may fail: the path is not there).
        catchThrowable(() -> first.store().stat("lingertest:///no/such/file"));
        assertThat(shared.hasRemoteFileSystem()).isTrue();
        first.close();
        // Planning through the shared store, then a lookup function: both take it over.
        try (FileStore planning = SharedCaches.planningStore(options, true)) {
            assertThat(planning).isNotNull();
        }
        try (SharedCaches.StoreLease second = SharedCaches.fileStore(options, true)) {
            assertThat(second.shared()).isSameAs(shared);
        }
    }
}
