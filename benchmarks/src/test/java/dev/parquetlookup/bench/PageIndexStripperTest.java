package dev.parquetlookup.bench;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PageIndexStripper} keeps every data page and row group of a file and drops only its page
 * index: the stripped file is smaller, its footer names no ColumnIndex or OffsetIndex, and its
 * column chunks start where they started and hold the same values count.
 */
class PageIndexStripperTest {

    @Test
    void dropsTheIndexAndKeepsThePages(@TempDir Path dir) throws IOException {
        Path[] files = PageIndexFixture.files(dir, true, 16);
        Path indexed = files[0];
        Path stripped = files[1];
        assertThat(Files.size(stripped)).isLessThan(Files.size(indexed));
        List<String> before = chunks(indexed, true);
        List<String> after = chunks(stripped, false);
        assertThat(after).isEqualTo(before).isNotEmpty();
    }

    /** Each column chunk's start, size and values; checks whether the chunk has a page index. */
    private static List<String> chunks(Path file, boolean indexed) throws IOException {
        List<String> chunks = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (ColumnChunkMetaData c : block.getColumns()) {
                    assertThat(c.getColumnIndexReference() != null).isEqualTo(indexed);
                    assertThat(c.getOffsetIndexReference() != null).isEqualTo(indexed);
                    chunks.add(
                            c.getPath()
                                    + "@"
                                    + c.getStartingPos()
                                    + "+"
                                    + c.getTotalSize()
                                    + "#"
                                    + c.getValueCount());
                }
            }
        }
        return chunks;
    }
}
