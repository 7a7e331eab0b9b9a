package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.DimensionTable;
import dev.parquetlookup.engine.TableConfig;

import java.io.IOException;
import java.io.Serializable;

/**
 * How a lookup function opens its table: {@link #DEFAULT} through the configured Hadoop file
 * system; tests substitute a store that injects faults or waits.
 */
@FunctionalInterface
public interface TableOpener extends Serializable {

    TableOpener DEFAULT = DimensionTable::open;

    DimensionTable open(TableConfig config) throws IOException;
}
