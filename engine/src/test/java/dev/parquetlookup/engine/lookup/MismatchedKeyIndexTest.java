package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key index that does not match its file is an error naming the file, never a wrong row. The
 * realistic way there: a file rewritten in place with other rows, keeping its path, size and
 * modification time (a copy that preserves times, a file system with coarse times), so that its
 * identity still matches the index left on local disk, which is reused. Every lookup of a key the
 * index holds then either fails with the index-mismatch error or returns only rows of the asked key
 * (the value column encodes the key and the file version, {@code v = k * 10 + version}), for
 * synchronous and asynchronous lookups, by the sort key and by a secondary key.
 */
class MismatchedKeyIndexTest {

    private static final int KEYS = 3000;

    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message table { required int64 k; required int64 v; }");

    @TempDir Path tmp;

    /**
     * Writes keys {@code 0..KEYS-1}, {@code v = k * 10 + version}, shuffled with {@code seed} (0:
     * sorted by {@code k}): plain fixed-width values, uncompressed, without page checksums (whose
     * varint size depends on the bytes), so that every version of the same keys has the same size.
     */
    private static void write(Path file, long seed, int version) throws IOException {
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < KEYS; k++) {
            keys.add(k);
        }
        if (seed != 0) {
            Collections.shuffle(keys, new Random(seed));
        }
        SimpleGroupFactory factory = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new LocalOutputFile(file))
                        .withType(SCHEMA)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                        .withDictionaryEncoding(false)
                        .withPageWriteChecksumEnabled(false)
                        .withPageRowCountLimit(100)
                        .withMinRowCountForPageSizeCheck(1)
                        .withRowGroupRowCountLimit(1000)
                        .build()) {
            for (long k : keys) {
                writer.write(factory.newGroup().append("k", k).append("v", k * 10 + version));
            }
        }
    }

    private TableConfig config(Path path) {
        return TableConfig.builder(path.toString())
                .sortKey(List.of("k"))
                .metadataCache(new MetadataCache(8 << 20))
                .indexDirectory(tmp.resolve("indexes"))
                .build();
    }

    /**
     * Writes version 1 of the file (shuffled with {@code seeds[0]}), indexes it by {@code
     * keyColumns} through a first table (whose answers are right), then rewrites it in place as
     * version 2 (shuffled with {@code seeds[1]}, other values) with the same path, size and
     * modification time. Returns the file.
     */
    private Path indexThenRewriteInPlace(List<String> keyColumns, long... seeds)
            throws IOException {
        Path file = Files.createDirectories(tmp.resolve("table")).resolve("part-0.parquet");
        write(file, seeds[0], 1);
        try (DimensionTable table = DimensionTable.open(config(file))) {
            LookupPlan plan = table.plan(keyColumns, List.of("k", "v"));
            for (long k = 0; k < KEYS; k += 500) {
                Object key = keyColumns.equals(List.of("k")) ? k : k * 10 + 1;
                assertThat(table.lookup(plan, new Object[] {key}))
                        .as("version 1, key %d", k)
                        .containsExactly(new Object[] {k, k * 10 + 1});
            }
        }
        assertThat(indexFiles()).as("the index left on disk").hasSize(1);
        long size = Files.size(file);
        FileTime modified = Files.getLastModifiedTime(file);
        Path rewritten = tmp.resolve("rewritten.parquet");
        write(rewritten, seeds[1], 2);
        Files.copy(rewritten, file, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(file, modified);
        assertThat(Files.size(file)).as("the rewrite keeps the size").isEqualTo(size);
        return file;
    }

    private List<Path> indexFiles() throws IOException {
        try (Stream<Path> files = Files.list(tmp.resolve("indexes"))) {
            return files.filter(p -> p.toString().endsWith(".pli")).toList();
        }
    }

    /**
     * Looks up every key version 1 held (by {@code k}, or {@code byValue} by its {@code v})
     * synchronously and asynchronously in a table of the rewritten file, which reuses version 1's
     * index: each answer is the mismatch error or rows of the asked key only. Returns how many
     * lookups failed: synchronous ones, then asynchronous ones.
     */
    private int[] lookUpEveryKey(Path file, List<String> keyColumns, boolean byValue)
            throws IOException {
        long reused = KeyIndexes.shared().statistics().indexesReused();
        int[] failed = new int[2];
        try (DimensionTable table = DimensionTable.open(config(file))) {
            LookupPlan plan = table.plan(keyColumns, List.of("k", "v"));
            RequestLimiter limiter = new RequestLimiter(16);
            for (long k = 0; k < KEYS; k++) {
                Object key = byValue ? k * 10 + 1 : k;
                List<Object[]> sync;
                try {
                    sync = table.lookup(plan, new Object[] {key});
                } catch (LookupFileException e) {
                    assertMismatch(e, file);
                    sync = null;
                    failed[0]++;
                }
                List<Object[]> async;
                try {
                    async = table.lookupAsync(plan, new Object[] {key}, limiter).join();
                } catch (CompletionException e) {
                    assertThat(e.getCause()).isInstanceOf(LookupFileException.class);
                    assertMismatch((LookupFileException) e.getCause(), file);
                    async = null;
                    failed[1]++;
                }
                for (List<Object[]> rows : java.util.Arrays.asList(sync, async)) {
                    if (rows == null) {
                        continue;
                    }
                    for (Object[] row : rows) {
                        // Only rows of the asked key: version 2's (v ends in 2) never match a key
                        // of version 1 by v, and by k only the row of that k.
                        assertThat(byValue ? row[1] : row[0]).as("key %s", key).isEqualTo(key);
                    }
                }
            }
        }
        assertThat(KeyIndexes.shared().statistics().indexesReused() - reused)
                .as("the table reused version 1's index (its identity matched)")
                .isEqualTo(1);
        return failed;
    }

    private static void assertMismatch(LookupFileException e, Path file) {
        assertThat(e)
                .hasMessageContaining("File ")
                .hasMessageContaining(file.getFileName().toString())
                .hasMessageContaining(": its key index names row ")
                .hasMessageContaining("The file changed in place after it was indexed")
                .hasMessageContaining("the index is damaged: deleting the index file rebuilds it.")
                .hasMessageContaining("Replace plain Parquet files atomically, never in place")
                .hasMessageContaining(
                        "a Delta or Iceberg table's writers never change a data file in place");
    }

    @Test
    void aFileRewrittenInPlaceUnderItsIndexFailsLookupsNeverReturnsAWrongRow() throws IOException {
        Path file = indexThenRewriteInPlace(List.of("k"), 1, 2);
        int[] failed = lookUpEveryKey(file, List.of("k"), false);
        // Rows shuffled anew: almost every key's index entry names a row of another key.
        assertThat(failed[0]).as("synchronous lookups failed").isGreaterThan(KEYS * 9 / 10);
        assertThat(failed[1]).as("asynchronous lookups failed").isGreaterThan(KEYS * 9 / 10);

        // What the message says to do: deleting the index file rebuilds it from the new rows.
        for (Path index : indexFiles()) {
            Files.delete(index);
        }
        try (DimensionTable table = DimensionTable.open(config(file))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            for (long k = 0; k < KEYS; k += 7) {
                assertThat(table.lookup(plan, new Object[] {k}))
                        .as("rebuilt, key %d", k)
                        .containsExactly(new Object[] {k, k * 10 + 2});
            }
        }
    }

    @Test
    void aSecondaryKeyIndexOfAFileRewrittenInPlaceFailsLookupsNeverReturnsAWrongRow()
            throws IOException {
        // Sorted by k (no sort-key index): the secondary key's index is the only one.
        Path file = indexThenRewriteInPlace(List.of("v"), 0, 0);
        int[] failed = lookUpEveryKey(file, List.of("v"), true);
        // Version 2 holds none of version 1's values: every entry names a row of another value.
        assertThat(failed).as("lookups failed of %d each", KEYS).containsExactly(KEYS, KEYS);
    }
}
