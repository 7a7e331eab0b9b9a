package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.TableColumns.KeyValues;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;

/**
 * The secondary keys of one opened file: for each set of key columns lookups use that is not a
 * leading prefix of the sort key (an e-mail address on a table sorted by id), the file's key index
 * on the columns it stores ({@link KeyIndexes}: built once per file version and column set, shared
 * by the JVM, held while the file is open), and how a key's values become the comparable forms the
 * index and the rows are compared in. A key column that is a constant of the file (a partition
 * value) is compared with the constant before anything is read. Thread-safe.
 *
 * <p>Example: on a file sorted by {@code id}, the key {@code [email]} gets an index on {@code
 * email} (a 64-bit hash per row); {@code key([email]).storedKey(["a@x.org"])} is {@code
 * [bytes("a@x.org")]}, searched in that index.
 */
final class SecondaryKeys implements Closeable {

    /** Marks a key column the file stores. */
    private static final Object STORED = new Object();

    /** Marks a key column whose constant in the file is NULL: no key matches it. */
    private static final Object NULL_CONSTANT = new Object();

    private final FileMetadata meta;
    private final ColumnDescriptor[] leaves;
    private final FileColumns columns;
    private final ToIntFunction<String> leafOf;
    private final RangeSource source;
    private final FileIndexing indexing;
    private final ConcurrentHashMap<List<String>, Key> keys = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param leafOf the leaf of a table column the file stores (throws for others)
     */
    SecondaryKeys(
            FileMetadata meta,
            ColumnDescriptor[] leaves,
            FileColumns columns,
            ToIntFunction<String> leafOf,
            RangeSource source,
            FileIndexing indexing) {
        this.meta = meta;
        this.leaves = leaves;
        this.columns = columns;
        this.leafOf = leafOf;
        this.source = source;
        this.indexing = indexing;
    }

    /**
     * One key column set in this file: the index of its stored columns and the constants of the
     * others.
     */
    static final class Key {
        private final List<String> names;
        private final KeyType[] types;
        // Per key column: its comparable constant, NULL_CONSTANT, or STORED.
        private final Object[] constants;
        private final int storedCount;
        private final SortedFile.IndexedKey stored;
        // Null when every key column is a constant of the file.
        @Nullable private final KeyIndexes.Handle handle;

        private Key(
                List<String> names,
                KeyType[] types,
                Object[] constants,
                SortedFile.IndexedKey stored,
                @Nullable KeyIndexes.Handle handle) {
            this.names = names;
            this.types = types;
            this.constants = constants;
            this.stored = stored;
            this.handle = handle;
            this.storedCount = stored.leaves().length;
        }

        /** The stored key columns' leaves and types; the index codes all of them. */
        SortedFile.IndexedKey indexed() {
            return stored;
        }

        /** The index of the stored columns, or null when every key column is a constant. */
        @Nullable
        KeyIndexes.Handle handle() {
            return handle;
        }

        /**
         * The stored parts of {@code key} (engine values in the key's column order, none null) in
         * comparable form, or null when no row of the file can match (a constant differs, or a
         * value no stored value can equal, such as a DECIMAL finer than the column's scale).
         */
        @Nullable
        Object[] storedKey(Object[] key) {
            Object[] result = new Object[storedCount];
            int j = 0;
            for (int i = 0; i < key.length; i++) {
                Object comparable = KeyValues.comparable(types[i], names.get(i), key[i]);
                if (comparable == KeyValues.NO_MATCH) {
                    return null;
                }
                Object constant = constants[i];
                if (constant == STORED) {
                    result[j++] = comparable;
                } else if (constant == NULL_CONSTANT
                        || types[i].compare(constant, comparable) != 0) {
                    return null;
                }
            }
            return result;
        }
    }

    /**
     * The key on {@code names} (table columns, in the lookup's key order), its index acquired on
     * first use (the build starts in the background).
     *
     * @throws LookupFileException if a column cannot be a key in this file
     */
    Key key(List<String> names) {
        Key key = keys.computeIfAbsent(names, this::open);
        if (closed) {
            close(); // a file closed meanwhile: release what this call may have acquired
        }
        return key;
    }

    /** Starts the index builds of {@code names} in the background (planning, warm-up). */
    void prepare(List<String> names) {
        key(names);
    }

    private Key open(List<String> names) {
        KeyType[] types = new KeyType[names.size()];
        Object[] constants = new Object[names.size()];
        List<Integer> storedLeaves = new ArrayList<>();
        List<KeyType> storedTypes = new ArrayList<>();
        List<String> physical = new ArrayList<>();
        List<ColumnDescriptor> descriptors = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (columns.constants().containsKey(name)) {
                Type field = columns.view().getType(name);
                types[i] = field.isPrimitive() ? KeyType.of(field.asPrimitiveType()) : null;
                if (types[i] == null) {
                    throw notAKey(name, field);
                }
                Object value = columns.constants().get(name);
                Object comparable =
                        value == null ? null : KeyValues.comparable(types[i], name, value);
                constants[i] =
                        comparable == null || comparable == KeyValues.NO_MATCH
                                ? NULL_CONSTANT
                                : comparable;
                continue;
            }
            int leaf = leafOf.applyAsInt(name);
            ColumnDescriptor descriptor = leaves[leaf];
            if (descriptor.getMaxRepetitionLevel() > 0) {
                throw notAKey(name, descriptor.getPrimitiveType());
            }
            types[i] = KeyType.of(descriptor.getPrimitiveType());
            if (types[i] == null) {
                throw notAKey(name, descriptor.getPrimitiveType());
            }
            constants[i] = STORED;
            storedLeaves.add(leaf);
            storedTypes.add(types[i]);
            String physicalName = columns.physicalName(name);
            physical.add(physicalName == null ? name : physicalName);
            descriptors.add(descriptor);
        }
        SortedFile.IndexedKey stored =
                new SortedFile.IndexedKey(
                        storedLeaves.stream().mapToInt(Integer::intValue).toArray(),
                        List.copyOf(storedTypes),
                        storedTypes.size());
        KeyIndexes.Handle handle =
                storedTypes.isEmpty()
                        ? null
                        : indexing.acquire(
                                meta.file(),
                                physical,
                                storedTypes,
                                descriptors,
                                meta.rowCount(),
                                source);
        return new Key(List.copyOf(names), types, constants, stored, handle);
    }

    private LookupFileException notAKey(String name, Type type) {
        return new LookupFileException(
                "Column '"
                        + name
                        + "' of file "
                        + meta.file()
                        + " is "
                        + type.toString().trim()
                        + ", which cannot be a lookup key (BOOLEAN, FLOAT, DOUBLE, INT96,"
                        + " unsigned and nested columns cannot). Look up by other columns and"
                        + " compare this one on the rows found.");
    }

    /** Releases the indexes held. */
    @Override
    public void close() {
        closed = true;
        for (Key key : keys.values()) {
            if (key.handle != null) {
                key.handle.close(); // idempotent
            }
        }
    }
}
