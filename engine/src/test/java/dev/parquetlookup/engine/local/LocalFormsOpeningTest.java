package dev.parquetlookup.engine.local;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.MetadataCache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LocalForms#opening}: a file's check asked for while a table opens starts when the open
 * ends (nothing runs before: the future stays incomplete while held), and then reads the footer the
 * open cached; a table opened with local forms releases its hold, so its files get their form.
 */
class LocalFormsOpeningTest {

    @TempDir Path tmp;

    private static Path duckDbFile(Path file) throws Exception {
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(
                    "COPY (SELECT i AS id, 'name-' || i AS name FROM range(150000) t(i) ORDER BY"
                            + " i) TO '"
                            + file
                            + "' (FORMAT parquet)");
        }
        return file;
    }

    @Test
    void aCheckAskedForDuringAnOpenStartsWhenTheOpenEnds() throws Exception {
        Path file = duckDbFile(tmp.resolve("duck.parquet"));
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        MetadataCache cache = new MetadataCache(16L << 20);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(file.toString());
            CompletableFuture<LocalForms.Outcome> settled;
            LocalForms.Hold first = forms.opening(cache);
            LocalForms.Hold second = forms.opening(cache);
            settled = forms.settle(id, store, List.of("id"));
            first.close();
            first.close(); // twice: still held by the second open
            assertThat(settled).isNotDone();
            second.close();
            assertThat(settled.get(2, TimeUnit.MINUTES).kind()).isEqualTo(LocalForms.Kind.READY);
        }
    }

    @Test
    void aTableOpenedWithLocalFormsReleasesItsHold() throws Exception {
        Path file = duckDbFile(tmp.resolve("duck.parquet"));
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        MetadataCache cache = new MetadataCache(16L << 20);
        try (DimensionTable table =
                        DimensionTable.open(
                                TableConfig.builder(file.toString())
                                        .sortKey(List.of("id"))
                                        .metadataCache(cache)
                                        .localForms(forms)
                                        .build());
                HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = table.files().get(0);
            assertThat(cache.anyFileMetadata(id)).isNotNull();
            LocalForms.Outcome outcome =
                    forms.settle(id, store, List.of("id")).get(2, TimeUnit.MINUTES);
            assertThat(outcome.kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(forms.stats().built()).isEqualTo(1);
        }
    }
}
