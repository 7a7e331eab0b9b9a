package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RetryingFileStore;

import java.io.IOException;
import java.io.Serializable;

/**
 * How a lookup function opens its table: {@link #DEFAULT} through the TaskManager's shared file
 * store for the table's Hadoop options, with retries; tests substitute a store that injects faults
 * or waits, e.g. {@code (config, refresh, shared) -> RefreshingTable.open(config, refresh, new
 * MyFaultyStore())}.
 */
@FunctionalInterface
public interface TableOpener extends Serializable {

    TableOpener DEFAULT =
            (config, refresh, shared) ->
                    RefreshingTable.open(
                            config, refresh, new RetryingFileStore(shared, refresh.retryPolicy()));

    /**
     * Opens the table, refreshed as {@code refresh} says ({@code refresh.interval}).
     *
     * @param shared the shared store for the table's Hadoop options (closing it does nothing)
     */
    RefreshingTable open(TableConfig config, RefreshOptions refresh, FileStore shared)
            throws IOException;
}
