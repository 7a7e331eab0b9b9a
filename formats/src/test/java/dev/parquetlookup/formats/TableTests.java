package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.MetadataCache;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the table tests share: a temporary directory, the tables opened (closed after each test),
 * one metadata cache, and the comparison of every answer with a format's independent reading.
 */
abstract class TableTests {

    /** Keys looked up in every version: all written ones and misses around them. */
    static final long MAX_KEY = 1_300;

    @TempDir Path dir;

    private final List<RefreshingTable> opened = new ArrayList<>();
    final MetadataCache cache = new MetadataCache(64L << 20);

    @AfterEach
    void closeTables() throws IOException {
        for (RefreshingTable t : opened) {
            t.close();
        }
    }

    final String location() {
        return dir.resolve("dim").toUri().toString();
    }

    /** The table {@code config} names, read as {@code format}, closed after the test. */
    final RefreshingTable open(TableConfig config, String format) throws IOException {
        RefreshingTable t =
                RefreshingTable.open(config, RefreshOptions.defaults().withFormat(format));
        opened.add(t);
        return t;
    }

    /** Every key 0..MAX_KEY answers exactly as the independent reading of {@code version}. */
    static <F> void assertServes(RefreshingTable table, FormatTestTable<F> t, long version)
            throws IOException {
        assertServes(table, t.read(version), t.versionLabel(version));
    }

    static void assertServes(
            RefreshingTable table, Map<Long, List<String>> expected, String version)
            throws IOException {
        LookupPlan plan = table.plan(List.of("id"), List.of("id", "name", "region"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo(version);
            for (long key = 0; key <= MAX_KEY; key++) {
                List<String> got = new ArrayList<>();
                for (Object[] row : lease.table().lookup(plan, new Object[] {key})) {
                    got.add(FormatTestTable.text(row[0], row[1], row[2]));
                }
                got.sort(null);
                assertThat(got)
                        .as("key %d of %s", key, version)
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }
    }

    /** Keys 0..maxKey by {@code id}, {@code columns} projected, as the independent reading. */
    static <F> void assertServes(
            RefreshingTable table, FormatTestTable<F> t, List<String> columns, long maxKey)
            throws IOException {
        assertServes(table, t, t.version(), columns, maxKey);
    }

    /** Keys 0..maxKey of {@code version} by {@code id}, {@code columns} projected. */
    static <F> void assertServes(
            RefreshingTable table,
            FormatTestTable<F> t,
            long version,
            List<String> columns,
            long maxKey)
            throws IOException {
        Map<Long, List<String>> expected = t.readColumns(version, columns);
        assertThat(expected).isNotEmpty();
        LookupPlan plan = table.plan(List.of("id"), columns);
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo(t.versionLabel(version));
            for (long key = 0; key <= maxKey; key++) {
                assertThat(lookup(lease, plan, key))
                        .as("key %d of %s", key, t.versionLabel(version))
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }
    }

    /** The rows of {@code key} as sorted {@code "v1|v2|..."} strings. */
    static List<String> lookup(RefreshingTable.Lease lease, LookupPlan plan, Object... key)
            throws IOException {
        List<String> got = new ArrayList<>();
        for (Object[] r : lease.table().lookup(plan, key)) {
            got.add(FormatTestTable.joined(r));
        }
        got.sort(null);
        return got;
    }
}
