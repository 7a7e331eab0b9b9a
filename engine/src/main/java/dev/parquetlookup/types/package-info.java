/**
 * The value types shared by the read side ({@code engine}) and the write side ({@code writer}):
 * {@link dev.parquetlookup.types.ValueType}, the logical type of a column and the Java
 * representation of its values, and {@link dev.parquetlookup.types.TimestampValue}. Below both, so
 * that neither depends on the other.
 */
package dev.parquetlookup.types;
