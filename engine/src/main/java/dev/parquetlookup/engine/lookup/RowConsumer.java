package dev.parquetlookup.engine.lookup;

import java.io.IOException;

/** Receives the rows of a table's scan ({@link DimensionTable#scan}), one at a time. */
@FunctionalInterface
public interface RowConsumer {
    void accept(Object[] row) throws IOException;
}
