package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The page cache admits a page on its second use in a window; the window forgets. */
class PageCacheAdmissionTest {

    private static final FileId FILE = new FileId("file:/t/a.parquet", 100, 1);

    @Test
    void aPageIsAdmittedOnItsSecondUse() {
        PageCache cache = new PageCache(64L << 20);
        assertThat(cache.admit(FILE, 0, 1, 7)).as("first use").isFalse();
        assertThat(cache.admit(FILE, 0, 1, 7)).as("second use").isTrue();
        assertThat(cache.admit(FILE, 0, 1, 8)).as("another page").isFalse();
        assertThat(cache.admit(FILE, 1, 1, 7)).as("another row group").isFalse();
    }

    @Test
    void pagesUsedOnceEachDoNotGetInAndTheWindowForgets() {
        PageCache cache = new PageCache(1L << 20); // a window of 1,024 first uses
        int admitted = 0;
        for (int p = 0; p < 100_000; p++) {
            if (cache.admit(FILE, p / 1000, 2, p % 1000)) {
                admitted++;
            }
        }
        // Uniform over many pages: only hash collisions within a window get in (one bit per
        // page, 8 bits per first use of a window: about 6%).
        assertThat(admitted).isLessThan(100_000 / 10);
        cache.admit(FILE, 0, 3, 0);
        for (int p = 0; p < 5_000; p++) {
            cache.admit(FILE, 9, 4, p); // more than a window of other first uses
        }
        assertThat(cache.admit(FILE, 0, 3, 0)).as("forgotten after the window").isFalse();
    }
}
