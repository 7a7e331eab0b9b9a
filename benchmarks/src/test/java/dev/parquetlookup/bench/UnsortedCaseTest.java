package dev.parquetlookup.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The unsorted case's reading of {@code /proc/self/smaps}: which mappings count as index files. */
class UnsortedCaseTest {

    @Test
    void sumsSizeAndRssOfTheIndexMappingsBelowTheDirectoryOnly() {
        List<String> smaps =
                List.of(
                        "7f0000000000-7f0000400000 r--s 00000000 fd:01 11 /b/idx/a.parquet-1f.pli",
                        "Size:               4096 kB",
                        "KernelPageSize:        4 kB",
                        "Rss:                1024 kB",
                        "Pss:                1024 kB",
                        "VmFlags: rd sh mr mw me ms sd",
                        // the data file mapped beside it: not an index
                        "7f0000400000-7f0000800000 r--s 00000000 fd:01 12 /b/data/a.parquet",
                        "Size:               4096 kB",
                        "Rss:                4096 kB",
                        // an index of another directory
                        "7f0000800000-7f0000810000 r--s 00000000 fd:01 13 /c/idx/b.pli",
                        "Size:                 64 kB",
                        "Rss:                  64 kB",
                        "7f0000810000-7f0000820000 r--s 00001000 fd:01 14 /b/idx/multi/c-2e.pli",
                        "Size:                 64 kB",
                        "AnonHugePages:         0 kB",
                        "Rss:                  16 kB",
                        // anonymous memory: no path
                        "7f0000820000-7f0000830000 rw-p 00000000 00:00 0",
                        "Size:                 64 kB",
                        "Rss:                  64 kB");

        long[] mapped = UnsortedCase.MappedIndexes.parse(smaps, "/b/idx/");

        assertThat(mapped).containsExactly((4096L + 64) * 1024, (1024L + 16) * 1024);
    }
}
