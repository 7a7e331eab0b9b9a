package dev.parquetlookup.engine.lookup;

/**
 * What a table does with a file that is not sorted by its key (found at open from statistics, or at
 * a lookup by a key page out of order).
 *
 * <ul>
 *   <li>{@link #INDEX} (the default): the file is served through a key index the reader builds from
 *       its key column(s) ({@code engine.index}), kept on local disk and shared by the JVM.
 *   <li>{@link #REFUSE}: the table refuses the file with an error naming it and the keys out of
 *       order.
 * </ul>
 */
public enum UnsortedFiles {
    INDEX,
    REFUSE
}
