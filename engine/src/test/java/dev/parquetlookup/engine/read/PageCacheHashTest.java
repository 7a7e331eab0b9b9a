package dev.parquetlookup.engine.read;

import dev.parquetlookup.io.FileId;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page cache's hash of a page's place looks random over the places a table has: one file of
 * many row groups, and ten files of few (a table of unsorted files), three columns, 128 pages per
 * column chunk. Few equal hashes, and the low bits (a hash table's bucket) spread as random hashes
 * would.
 */
class PageCacheHashTest {

    @Test
    void pagesOfOneFileAndOfTenFilesGetHashesThatLookRandom() {
        Set<Integer> sorted = new HashSet<>();
        FileId one = new FileId("file:/t/sorted.parquet", 398_000_000L, 1_700_000_000_000L);
        int places = 0;
        Map<Integer, Integer> buckets = new HashMap<>();
        for (int rowGroup = 0; rowGroup < 77; rowGroup++) {
            for (int leaf = 0; leaf < 3; leaf++) {
                for (int page = 0; page < 128; page++) {
                    int h = PageCache.hash(one, rowGroup, leaf, page);
                    sorted.add(h);
                    places++;
                }
            }
        }
        assertThat(sorted.size())
                .as("distinct hashes of %d places", places)
                .isGreaterThan(places - 5);
        Set<Integer> unsorted = new HashSet<>();
        places = 0;
        for (int f = 0; f < 10; f++) {
            FileId file =
                    new FileId(
                            "file:/t/part-" + f + ".parquet", 39_800_000L + f, 1_700_000_000_000L);
            for (int rowGroup = 0; rowGroup < 8; rowGroup++) {
                for (int leaf = 0; leaf < 3; leaf++) {
                    for (int page = 0; page < 128; page++) {
                        int h = PageCache.hash(file, rowGroup, leaf, page);
                        unsorted.add(h);
                        buckets.merge(h & 0xFFFF, 1, Integer::sum);
                        places++;
                    }
                }
            }
        }
        assertThat(unsorted.size())
                .as("distinct hashes of %d places", places)
                .isGreaterThan(places - 5);
        // 30,720 places in 65,536 buckets: random hashes fill about 25,500 of them (1 - e^-0.47).
        assertThat(buckets.size()).as("buckets used").isGreaterThan(24_500);
    }
}
