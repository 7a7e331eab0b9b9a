package dev.parquetlookup.engine.source;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Delta or Iceberg table's root is never served as plain files (found by a user: a Delta root
 * read with the default {@code 'format' = 'files'} served a file the log had removed, so a key the
 * table holds once came back twice).
 */
public class TableRootsTest {

    @TempDir Path dir;

    private static final List<ColumnSpec> KV =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("v", ValueType.of(Kind.STRING)));

    /** Writes {@code name} under {@code root} holding keys 1..10, values prefixed by its name. */
    static void writeFile(Path root, String name) throws IOException {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(), KV, List.of("k"), WriterOptions.builder().build())) {
            for (long k = 1; k <= 10; k++) {
                w.write(new Object[] {k, name + "-" + k});
            }
        }
    }

    /** Two files holding the same keys, and a Delta log whose one version names only the first. */
    public static Path deltaRootWithARemovedFile(Path dir) throws IOException {
        Path root = dir.resolve("delta");
        writeFile(root, "part-0.parquet");
        writeFile(root, "part-1.parquet");
        Path log = Files.createDirectories(root.resolve("_delta_log"));
        Files.writeString(
                log.resolve("00000000000000000000.json"),
                "{\"add\":{\"path\":\"part-0.parquet\",\"size\":1,\"dataChange\":true}}\n");
        return root;
    }

    /** An Iceberg layout: data/ and metadata/ with a table metadata file. */
    public static Path icebergRoot(Path dir) throws IOException {
        Path root = dir.resolve("iceberg");
        writeFile(root, "data/00000-0-a.parquet");
        Path metadata = Files.createDirectories(root.resolve("metadata"));
        Files.writeString(metadata.resolve("v1.metadata.json"), "{\"format-version\":2}");
        return root;
    }

    /** Opens {@code path} as SQL and DataStream do, with the default {@code 'format' = 'files'}. */
    private static RefreshingTable open(Path path) throws IOException {
        return RefreshingTable.open(
                TableConfig.builder(path.toString())
                        .metadataCache(new MetadataCache(1 << 20))
                        .build(),
                RefreshOptions.defaults());
    }

    @Test
    void aDeltaRootIsRefusedNamingTheFormat() throws IOException {
        Path root = deltaRootWithARemovedFile(dir);
        assertThatThrownBy(() -> open(root))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining(root.toString())
                .hasMessageContaining("_delta_log")
                .hasMessageContaining("'format' = 'delta'")
                .hasMessageContaining("--format delta");
    }

    @Test
    void anIcebergRootIsRefusedNamingTheFormat() throws IOException {
        Path root = icebergRoot(dir);
        assertThatThrownBy(() -> open(root))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Iceberg")
                .hasMessageContaining("'format' = 'iceberg'");
    }

    @Test
    void aDeltaRootIsRefusedInEverySnapshotMode() throws IOException {
        Path root = deltaRootWithARemovedFile(dir);
        assertThatThrownBy(
                        () ->
                                SnapshotSource.directory(
                                                root.toString(),
                                                RefreshOptions.SnapshotMode.LATEST_SUCCESS,
                                                HadoopFileStore.create(Map.of()))
                                        .list(null))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("'format' = 'delta'");
    }

    /**
     * A single file has nothing below it: no status request is made for a log (on S3 a request for
     * a key below an object's key can fail, and every request costs).
     */
    @Test
    void aSingleFileCostsNoStatusRequest() throws IOException {
        writeFile(dir, "one.parquet");
        AtomicInteger stats = new AtomicInteger();
        FileStore counting =
                new ForwardingFileStore(HadoopFileStore.create(Map.of())) {
                    @Override
                    public FileId stat(String path) throws IOException {
                        stats.incrementAndGet();
                        return super.stat(path);
                    }
                };
        Path file = dir.resolve("one.parquet");
        SnapshotSource source =
                SnapshotSource.directory(
                        file.toString(), RefreshOptions.SnapshotMode.ALL_FILES, counting);
        assertThat(source.list(null).files()).hasSize(1);
        assertThat(stats).hasValue(0);
        // A directory: one status request, on the first listing only.
        SnapshotSource directory =
                SnapshotSource.directory(
                        dir.toString(), RefreshOptions.SnapshotMode.ALL_FILES, counting);
        directory.list(null);
        directory.list(null);
        assertThat(stats).hasValue(1);
    }

    /** Plain files, one in a folder named metadata, beside a '_' folder: served as before. */
    @Test
    void plainFilesStillServeWithAFolderNamedMetadata() throws IOException {
        Path root = dir.resolve("plain");
        writeFile(root, "a.parquet");
        Files.createDirectories(root.resolve("_temporary"));
        Path other = dir.resolve("other");
        writeFile(other, "metadata/b.parquet");
        try (RefreshingTable table = open(root)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(table.lookup(plan, new Object[] {3L})).hasSize(1);
        }
        try (RefreshingTable table = open(other)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(table.lookup(plan, new Object[] {3L})).hasSize(1);
        }
    }
}
