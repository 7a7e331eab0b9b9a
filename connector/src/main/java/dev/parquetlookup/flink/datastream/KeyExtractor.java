package dev.parquetlookup.flink.datastream;

import java.io.Serializable;

/**
 * Takes one key value out of an event, e.g. {@code order -> order.customerId}. Serializable, as it
 * is shipped to the task managers with the function.
 *
 * <p>The value's Java type must fit the key column's type in the files (a {@code Long} for BIGINT,
 * a {@code String} for STRING, a {@code LocalDate} for DATE, ...: see {@link ParquetEnrichment}).
 * Returning {@code null} makes the event match no row, as a SQL join on a null key does.
 *
 * @param <IN> the event type
 */
@FunctionalInterface
public interface KeyExtractor<IN> extends Serializable {

    /** The key value of {@code event}, or null. */
    Object extract(IN event) throws Exception;
}
