package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.types.ValueType;

/**
 * One top-level column of a dimension table.
 *
 * @param name the column name as written in the file
 * @param type the logical type the engine reads it as
 * @param nullable whether the column may hold nulls (Parquet OPTIONAL)
 * @param parquetType the Parquet type, for messages (e.g. {@code optional binary name (STRING)})
 */
public record ColumnSchema(String name, ValueType type, boolean nullable, String parquetType) {}
