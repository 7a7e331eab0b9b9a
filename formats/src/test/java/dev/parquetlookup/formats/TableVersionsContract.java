package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every source of table versions must do, plain Parquet directories included: each version of
 * appends, overwrites and dropped files is served exactly as the format's own reader reads it, a
 * lookup that started on a version finishes on it. Each format extends this class with its {@link
 * FormatTestTable}; {@link TableFormatContract} adds what table formats (not plain directories)
 * must do.
 *
 * @param <T> the format's test table
 * @param <F> what names one of its data files
 */
abstract class TableVersionsContract<T extends FormatTestTable<F>, F> extends TableTests {

    /** The value of the {@code format} option. */
    abstract String format();

    /** A new empty table at {@link #location()}. */
    abstract T create() throws IOException;

    /** The path to open for the table at {@link #location()}. */
    String tablePath() {
        return location();
    }

    /**
     * More versions after the fourth of {@link
     * #servesEachVersionOfAppendsOverwritesAndFileDeletesExactly}.
     */
    void afterTheFourthVersion(RefreshingTable table, T t) throws IOException {}

    final RefreshingTable open(TableConfig config) throws IOException {
        return open(config, format());
    }

    /** The table at {@code path} by {@code sortKey} (none: the format's own), closed after. */
    final RefreshingTable open(String path, List<String> sortKey, Map<String, String> options)
            throws IOException {
        return open(
                TableConfig.builder(path)
                        .sortKey(sortKey)
                        .hadoopOptions(options)
                        .metadataCache(cache)
                        .build());
    }

    final RefreshingTable open() throws IOException {
        return open(tablePath(), List.of("id"), Map.of());
    }

    @Test
    void servesEachVersionOfAppendsOverwritesAndFileDeletesExactly() throws IOException {
        T t = create();
        F evens = t.append(rows("a", "eu", range(0, 1_000, 2)));
        long v1 = t.version();

        RefreshingTable table = open();
        assertServes(table, t, v1);
        assertThat(table.status().sourceVersion()).isEqualTo(t.versionLabel(v1));

        // v2: odd keys, and keys 0..98 a second time (a duplicate key across files).
        List<FormatTestTable.Row> odd = new ArrayList<>(rows("b", "us", range(1, 1_000, 2)));
        odd.addAll(rows("c", "eu", range(0, 100, 2)));
        F odds = t.append(odd);
        try (RefreshingTable.Lease onV1 = table.acquire()) {
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            // A lookup that started on v1 finishes on v1.
            LookupPlan plan = table.plan(List.of("id"), List.of("name"));
            assertThat(onV1.table().lookup(plan, new Object[] {1L})).isEmpty();
            assertThat(onV1.sourceVersion()).isEqualTo(t.versionLabel(v1));
        }
        assertServes(table, t, t.version());

        // v3: the evens file replaced by every third key up to 1,300 (remove + add in one commit).
        t.overwrite(evens, rows("d", "ap", range(0, MAX_KEY, 3)));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, t, t.version());

        // v4: the odds file dropped as a whole.
        t.deleteFile(odds);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, t, t.version());
        assertThat(table.files()).hasSize(1);
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        assertThat(table.status().version()).isEqualTo(4);
        afterTheFourthVersion(table, t);
    }
}
