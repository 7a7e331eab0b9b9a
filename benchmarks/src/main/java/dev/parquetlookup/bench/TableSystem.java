package dev.parquetlookup.bench;

import dev.parquetlookup.engine.lookup.DimensionTable;

import javax.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A system that is this engine on one opened {@link DimensionTable}: owns the table (its read
 * counters and its close) and turns a lookup's rows into the answer; each subclass says how it
 * opens the table and looks a key up.
 */
abstract class TableSystem implements LookupSystem {

    protected final DimensionTable table;

    TableSystem(DimensionTable table) {
        this.table = table;
    }

    /** The answer of a lookup projecting {@code v}: the last row's, or null for none. */
    @Nullable
    static String value(List<Object[]> rows) {
        String found = null;
        for (Object[] row : rows) {
            found = new String((byte[]) row[0], StandardCharsets.UTF_8);
        }
        return found;
    }

    @Override
    public long bytesRead() {
        return table.readStatistics().bytesRead();
    }

    @Override
    public long readRequests() {
        return table.readStatistics().readRequests();
    }

    @Override
    public void close() throws Exception {
        table.close();
    }
}
