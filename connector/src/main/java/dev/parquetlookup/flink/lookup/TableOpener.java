package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.RefreshOptions;
import dev.parquetlookup.engine.RefreshingTable;
import dev.parquetlookup.engine.TableConfig;

import java.io.IOException;
import java.io.Serializable;

/**
 * How a lookup function opens its table: {@link #DEFAULT} through the configured Hadoop file
 * system; tests substitute a store that injects faults or waits, e.g. {@code (config, refresh) ->
 * RefreshingTable.open(config, refresh, new MyFaultyStore())}.
 */
@FunctionalInterface
public interface TableOpener extends Serializable {

    TableOpener DEFAULT = RefreshingTable::open;

    /** Opens the table, refreshed as {@code refresh} says ({@code refresh.interval}). */
    RefreshingTable open(TableConfig config, RefreshOptions refresh) throws IOException;
}
