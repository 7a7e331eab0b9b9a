package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import io.delta.kernel.data.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.parquetlookup.formats.IcebergTestTable.range;
import static dev.parquetlookup.formats.IcebergTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Delta tables written by the Delta kernel, served through {@code 'format' = 'delta'}: every answer
 * of every version equals the kernel's own reading of that version (deletion vectors applied), and
 * versions the engine cannot serve exactly are refused while the last good one keeps serving.
 */
class DeltaTableTest {

    private static final long MAX_KEY = 1_300;

    @TempDir Path dir;

    private final List<RefreshingTable> opened = new ArrayList<>();
    private final MetadataCache cache = new MetadataCache(64L << 20);

    @AfterEach
    void closeTables() throws IOException {
        for (RefreshingTable t : opened) {
            t.close();
        }
    }

    private String location() {
        return dir.resolve("dim").toUri().toString();
    }

    private RefreshingTable open(String path) throws IOException {
        RefreshingTable t =
                RefreshingTable.open(
                        TableConfig.builder(path)
                                .sortKey(List.of("id"))
                                .metadataCache(cache)
                                .build(),
                        RefreshOptions.defaults().withFormat(DeltaFormat.NAME));
        opened.add(t);
        return t;
    }

    /** Every key 0..MAX_KEY answers exactly as the kernel's reader of {@code version}. */
    private static void assertServes(RefreshingTable table, DeltaTestTable delta, long version)
            throws IOException {
        assertServes(table, delta.read(version), "delta version " + version);
    }

    private static void assertServes(
            RefreshingTable table, Map<Long, List<String>> expected, String version)
            throws IOException {
        LookupPlan plan = table.plan(List.of("id"), List.of("id", "name", "region"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo(version);
            for (long key = 0; key <= MAX_KEY; key++) {
                List<String> got = new ArrayList<>();
                for (Object[] row : lease.table().lookup(plan, new Object[] {key})) {
                    got.add(IcebergTestTable.text(row[0], row[1], row[2]));
                }
                got.sort(null);
                assertThat(got)
                        .as("key %d of %s", key, version)
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }
    }

    @Test
    void servesEachVersionOfAppendsOverwritesAndFileDeletesExactly() throws IOException {
        DeltaTestTable delta = DeltaTestTable.create(location(), Map.of());
        Row evens = delta.append(rows("a", "eu", range(0, 1_000, 2)));
        assertThat(delta.version()).isEqualTo(1);

        RefreshingTable table = open(location());
        assertServes(table, delta, 1);
        assertThat(table.status().sourceVersion()).isEqualTo("delta version 1");

        // v2: odd keys, and keys 0..98 a second time (a duplicate key across files).
        Row odds =
                delta.append(
                        concat(
                                rows("b", "us", range(1, 1_000, 2)),
                                rows("c", "eu", range(0, 100, 2))));
        try (RefreshingTable.Lease onV1 = table.acquire()) {
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            LookupPlan plan = table.plan(List.of("id"), List.of("name"));
            assertThat(onV1.table().lookup(plan, new Object[] {1L})).isEmpty();
            assertThat(onV1.sourceVersion()).isEqualTo("delta version 1");
        }
        assertServes(table, delta, 2);

        // v3: the evens file replaced by every third key up to 1,300 (remove + add in one commit).
        delta.overwrite(evens, rows("d", "ap", range(0, MAX_KEY, 3)));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 3);

        // v4: the odds file removed as a whole.
        delta.deleteFile(odds);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 4);
        assertThat(table.files()).hasSize(1);
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        assertThat(table.status().version()).isEqualTo(4);

        // A checkpoint (Parquet, written by the kernel) of v4, then v5: read from the checkpoint
        // and the commit after it.
        delta.checkpoint();
        assertThat(dir.resolve("dim/_delta_log/00000000000000000004.checkpoint.parquet")).exists();
        delta.append(rows("e", "us", range(1_000, MAX_KEY, 1)));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 5);
        assertServes(open(location()), delta, 5);
    }

    @Test
    void deletionVectorsAreAppliedInlineAndOnDisk() throws IOException {
        DeltaTestTable delta =
                DeltaTestTable.create(location(), Map.of("delta.enableDeletionVectors", "true"));
        Row file = delta.append(rows("a", "eu", range(0, 1_000, 1)));
        delta.append(rows("b", "us", range(0, 50, 1))); // the same keys in another file
        RefreshingTable table = open(location());
        assertServes(table, delta, 2);

        // v3: a vector in a deletion_vector_<uuid>.bin file deletes rows 0, 3 and 7..9 (keys 0,
        // 3, 7, 8, 9) of the first file.
        Row withDv = delta.deleteRows(file, false, 0, 3, 7, 8, 9);
        assertThat(delta.read(3).get(3L)).containsExactly("3|b-3|us");
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 3);

        // v4: an inline vector replaces it: rows 500..599 deleted, 0..9 live again. The kernel's
        // own reader (4.0) cannot read inline vectors (its isInline() compares strings with
        // '=='), so the expected rows are v2's (read by the kernel) without the deleted ones.
        Row inlineDv = delta.deleteRows(withDv, true, range(500, 600, 1));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        Map<Long, List<String>> expected = delta.read(2);
        for (long key = 500; key < 600; key++) {
            expected.remove(key); // file "b" holds keys 0..49 only
        }
        assertServes(table, expected, "delta version 4");
        // The data files are unchanged: their cached metadata stayed (no new file opened).
        assertThat(table.files()).hasSize(2);

        // v5: an on-disk vector again; then its file is gone: the version cannot be served
        // without returning deleted rows.
        delta.deleteRows(inlineDv, false, 1, 2);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 5);
        // The vector's file gone: the version cannot be served without returning deleted rows.
        try (Stream<Path> files = Files.list(dir.resolve("dim"))) {
            for (Path p :
                    files.filter(p -> p.getFileName().toString().startsWith("deletion_vector_"))
                            .toList()) {
                Files.delete(p);
            }
        }
        assertThatThrownBy(() -> open(location()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("delta version 5")
                .hasMessageContaining("cannot read the deletion vector")
                .hasMessageContaining("restore the deletion vector file");
    }

    @Test
    void aDirectoryThatIsNotATableAndAnEmptyTableAreNamed() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Files.writeString(plain.resolve("x.parquet"), "not parquet");
        assertThatThrownBy(() -> open(plain.toUri().toString()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("is not a Delta table")
                .hasMessageContaining("'format' = 'files'");

        DeltaTestTable.create(location(), Map.of());
        assertThatThrownBy(() -> open(location()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("delta version 0")
                .hasMessageContaining("has no data files");
    }

    @Test
    void aCorruptCommitOrAMissingDataFileKeepsTheLastGoodVersion() throws IOException {
        DeltaTestTable delta = DeltaTestTable.create(location(), Map.of());
        delta.append(rows("a", "eu", range(0, 300, 1)));
        RefreshingTable table = open(location());

        // v2's commit is garbage.
        delta.append(rows("b", "eu", range(300, 600, 1)));
        Path commit = dir.resolve("dim/_delta_log/00000000000000000002.json");
        byte[] good = Files.readAllBytes(commit);
        Files.writeString(commit, "{ not json");
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains(location().replace("file:///", "/"));
        assertServes(table, delta, 1);

        // Repaired: v2 is served.
        Files.write(commit, good);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 2);

        // v3 names a data file that is gone.
        delta.append(rows("c", "eu", range(600, 900, 1)));
        Path gone = newestDataFile(dir.resolve("dim"));
        Files.delete(gone);
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains(gone.getFileName().toString());
        assertServes(table, delta, 2);
    }

    private static Path newestDataFile(Path root) throws IOException {
        try (Stream<Path> files = Files.list(root)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .max(
                            (a, b) -> {
                                try {
                                    return Files.getLastModifiedTime(a)
                                            .compareTo(Files.getLastModifiedTime(b));
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            })
                    .orElseThrow();
        }
    }

    @SafeVarargs
    private static <T> List<T> concat(List<T>... lists) {
        List<T> all = new ArrayList<>();
        for (List<T> l : lists) {
            all.addAll(l);
        }
        return all;
    }
}
