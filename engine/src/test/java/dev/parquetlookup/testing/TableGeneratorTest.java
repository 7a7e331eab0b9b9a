package dev.parquetlookup.testing;

import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generator's own check: every file it writes reads back through parquet-java equal to the
 * reference, is sorted, and the seeds the engine tests use really cover the layouts they claim
 * (codecs, encodings, page v2, 1-row pages, key runs across pages, row groups and files).
 */
class TableGeneratorTest {

    /** The seeds {@code EngineRandomizedTest} runs. */
    private static final int SEEDS = 60;

    @TempDir Path tmp;

    @Test
    void filesReadBackAsTheReferenceAndSeedsCoverTheMatrix() throws Exception {
        Set<String> codecs = new HashSet<>();
        Set<Encoding> encodings = EnumSet.noneOf(Encoding.class);
        Set<String> keyKinds = new HashSet<>();
        Set<String> valueKinds = new HashSet<>();
        boolean v2Pages = false;
        boolean onePerPage = false;
        boolean runAcrossPages = false;
        boolean runAcrossRowGroups = false;
        boolean runAcrossFiles = false;
        boolean compositeKey = false;
        boolean overlapping = false;
        boolean noPageIndex = false;
        boolean sortingColumnsOnly = false;
        Set<TableSpec.Writer> writers = EnumSet.noneOf(TableSpec.Writer.class);
        for (long seed = 0; seed < SEEDS; seed++) {
            TableSpec spec = TableGenerator.randomSpec(seed, TableGenerator.ALL_WRITERS);
            GeneratedTable t = TableGenerator.generate(spec, tmp.resolve("s" + seed));
            String context = "\n" + spec.describe();
            compositeKey |= spec.sortKey().size() > 1;
            overlapping |= spec.overlappingFiles();
            noPageIndex |= !spec.options().pageIndex();
            sortingColumnsOnly |= !spec.sortKeyInConfig();
            writers.add(spec.writer());
            spec.sortKey()
                    .forEach(
                            k ->
                                    keyKinds.add(
                                            spec.column(k).type().kind()
                                                    + "/"
                                                    + spec.column(k).storage()));
            spec.columns().forEach(c -> valueKinds.add(c.type() + "/" + c.storage()));
            Comparator<Object[]> byKey = Values.rowKeyOrder(spec.keyIndexes());
            Object[] previousFileLast = null;
            for (GeneratedTable.GeneratedFile f : t.files()) {
                List<Object[]> read = ParquetJavaFiles.readRows(f.path(), spec.columns());
                assertThat(Values.rowListsEqual(read, f.rows()))
                        .as("%s reads back as written%s", f.path(), context)
                        .isTrue();
                for (int i = 1; i < read.size(); i++) {
                    assertThat(byKey.compare(read.get(i - 1), read.get(i))).isLessThanOrEqualTo(0);
                }
                if (previousFileLast != null && byKey.compare(previousFileLast, read.get(0)) == 0) {
                    runAcrossFiles = true;
                }
                previousFileLast = read.get(read.size() - 1);
                try (ParquetFileReader reader =
                        ParquetFileReader.open(new LocalInputFile(f.path()))) {
                    int keyCol = spec.keyIndexes()[0];
                    long rowBase = 0;
                    Object[] lastOfPreviousGroup = null;
                    for (BlockMetaData block : reader.getRowGroups()) {
                        for (ColumnChunkMetaData chunk : block.getColumns()) {
                            codecs.add(chunk.getCodec().name());
                            encodings.addAll(chunk.getEncodings());
                            v2Pages |=
                                    chunk.getEncodingStats() != null
                                            && chunk.getEncodingStats().usesV2Pages();
                        }
                        if (!spec.options().pageIndex()) {
                            assertThat(block.getColumns().get(keyCol).getOffsetIndexReference())
                                    .as("no page index" + context)
                                    .isNull();
                            rowBase += block.getRowCount();
                            lastOfPreviousGroup = read.get((int) rowBase - 1);
                            continue;
                        }
                        OffsetIndex pages = reader.readOffsetIndex(block.getColumns().get(keyCol));
                        assertThat(pages).as("page index written" + context).isNotNull();
                        for (int p = 1; p < pages.getPageCount(); p++) {
                            long first = rowBase + pages.getFirstRowIndex(p);
                            if (byKey.compare(read.get((int) first - 1), read.get((int) first))
                                    == 0) {
                                runAcrossPages = true;
                            }
                        }
                        onePerPage |=
                                pages.getPageCount() == block.getRowCount()
                                        && block.getRowCount() > 1;
                        if (lastOfPreviousGroup != null
                                && byKey.compare(lastOfPreviousGroup, read.get((int) rowBase))
                                        == 0) {
                            runAcrossRowGroups = true;
                        }
                        rowBase += block.getRowCount();
                        lastOfPreviousGroup = read.get((int) rowBase - 1);
                    }
                }
            }
        }
        assertThat(codecs)
                .containsExactlyInAnyOrder("UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW");
        assertThat(encodings)
                .contains(
                        Encoding.PLAIN,
                        Encoding.RLE,
                        Encoding.PLAIN_DICTIONARY,
                        Encoding.RLE_DICTIONARY,
                        Encoding.DELTA_BINARY_PACKED,
                        Encoding.DELTA_BYTE_ARRAY,
                        Encoding.BYTE_STREAM_SPLIT);
        assertThat(keyKinds)
                .containsExactlyInAnyOrder(
                        "INT/PLAIN",
                        "BIGINT/PLAIN",
                        "STRING/PLAIN",
                        "BINARY/PLAIN",
                        "DATE/PLAIN",
                        "TIMESTAMP/UNIT",
                        "DECIMAL/DECIMAL_INT32",
                        "DECIMAL/DECIMAL_INT64",
                        "DECIMAL/DECIMAL_FIXED",
                        "DECIMAL/DECIMAL_BINARY");
        assertThat(valueKinds.size()).isGreaterThan(30);
        assertThat(v2Pages).as("data page v2").isTrue();
        assertThat(onePerPage).as("one row per page").isTrue();
        assertThat(runAcrossPages).as("equal keys across a page boundary").isTrue();
        assertThat(runAcrossRowGroups).as("equal keys across a row-group boundary").isTrue();
        assertThat(runAcrossFiles).as("equal keys across a file boundary").isTrue();
        assertThat(compositeKey).as("composite keys").isTrue();
        assertThat(overlapping).as("overlapping files").isTrue();
        assertThat(noPageIndex).as("files without a page index").isTrue();
        assertThat(sortingColumnsOnly).as("sort key taken from sorting_columns").isTrue();
        assertThat(writers).containsExactlyInAnyOrder(TableSpec.Writer.values());
    }

    @Test
    void neighboursAreStrictlyOrdered() {
        List<ColumnSpec> keys = TableGenerator.allKeyColumns(new java.util.Random(1));
        java.util.Random r = new java.util.Random(2);
        List<String> failures = new ArrayList<>();
        for (ColumnSpec c : keys) {
            for (int i = 0; i < 2000; i++) {
                Object v = TableGenerator.randomKey(c, r, r.nextBoolean());
                Object up = TableGenerator.above(c, v);
                Object down = TableGenerator.below(c, v);
                if (up != null && Values.compareKey(v, up) >= 0) {
                    failures.add(
                            c + ": above(" + Values.describe(v) + ") = " + Values.describe(up));
                }
                if (down != null && Values.compareKey(down, v) >= 0) {
                    failures.add(
                            c + ": below(" + Values.describe(v) + ") = " + Values.describe(down));
                }
            }
        }
        assertThat(failures).isEmpty();
    }
}
