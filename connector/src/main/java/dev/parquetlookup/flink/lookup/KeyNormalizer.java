package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the planner's key row into the engine's key: fields reordered into sort-key order and
 * converted from Flink's internal data to the engine's representation ({@code
 * dev.parquetlookup.types.ValueType}).
 *
 * <p>The planner orders lookup keys by their position in the table's (projected) schema, while the
 * engine wants them in sort-key order. Example: for a table declared {@code (name STRING, g INT, v
 * DOUBLE)} sorted by {@code (g, name)}, a join on both gives the key row {@code (name, g)}; the
 * normaliser returns {@code [g, name]}, i.e. {@code [Integer, byte[]]}. Key columns outside the
 * prefix are left to {@link LookupSpec#matchesResidual}.
 *
 * <p>A null key component makes the key match nothing ({@link #normalize} returns {@code null}), as
 * in SQL, where {@code NULL = NULL} is not true.
 */
public final class KeyNormalizer implements Serializable {

    private static final long serialVersionUID = 1L;

    /** For each sort-key position, the position of that column in the planner's key row. */
    private final int[] rowPositions;

    private final LogicalType[] types;
    private final RowData.FieldGetter[] getters;
    private final List<String> keyColumnsInSortOrder;

    /**
     * @param plannerKeyNames the key columns in the planner's order (the key row's fields)
     * @param plannerKeyTypes their declared types
     * @param enginePrefix the engine's key: a leading prefix of the files' sort key, in sort order,
     *     or a secondary key (other columns, in the planner's order), every column of which is
     *     among the planner's keys (chosen at planning by {@code LookupSpec.engineKey})
     */
    public KeyNormalizer(
            List<String> plannerKeyNames,
            List<LogicalType> plannerKeyTypes,
            List<String> enginePrefix) {
        if (plannerKeyTypes.size() != plannerKeyNames.size()) {
            throw new IllegalArgumentException("one type per key column expected");
        }
        int n = enginePrefix.size();
        rowPositions = new int[n];
        types = new LogicalType[n];
        getters = new RowData.FieldGetter[n];
        keyColumnsInSortOrder = new ArrayList<>(enginePrefix);
        for (int i = 0; i < n; i++) {
            int pos = plannerKeyNames.indexOf(enginePrefix.get(i));
            if (pos < 0) {
                throw new IllegalArgumentException(
                        "sort-key column "
                                + enginePrefix.get(i)
                                + " is not among the key columns "
                                + plannerKeyNames);
            }
            rowPositions[i] = pos;
            types[i] = plannerKeyTypes.get(pos);
            getters[i] = RowData.createFieldGetter(types[i], pos);
        }
    }

    /** The key columns in sort-key order, as the engine's plan wants them. */
    public List<String> keyColumns() {
        return keyColumnsInSortOrder;
    }

    /** The key in sort-key order and engine representation, or null if a component is null. */
    @Nullable
    public Object[] normalize(RowData keyRow) {
        Object[] key = new Object[rowPositions.length];
        for (int i = 0; i < rowPositions.length; i++) {
            int pos = rowPositions[i];
            if (keyRow.isNullAt(pos)) {
                return null;
            }
            key[i] = toEngine(getters[i].getFieldOrNull(keyRow), types[i]);
        }
        return key;
    }

    /**
     * One value of Flink internal data (as {@link RowDataConverter#toFlink} makes it, never null)
     * in the engine's representation: {@link #toEngine(RowData, int, LogicalType)} without a row.
     */
    static Object toEngine(Object flink, LogicalType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN, INTEGER, DATE, BIGINT, FLOAT, DOUBLE, BINARY, VARBINARY -> flink;
            case TINYINT -> (int) (Byte) flink;
            case SMALLINT -> (int) (Short) flink;
            case CHAR, VARCHAR -> ((StringData) flink).toBytes();
            case DECIMAL -> ((DecimalData) flink).toBigDecimal();
            case TIME_WITHOUT_TIME_ZONE -> (Integer) flink * 1_000_000L;
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
                TimestampData t = (TimestampData) flink;
                yield new TimestampValue(t.getMillisecond(), t.getNanoOfMillisecond());
            }
            default ->
                    throw new UnsupportedOperationException(
                            "lookup keys of type " + type + " are not supported");
        };
    }

    /** One field of Flink internal data (not null) in the engine's representation. */
    static Object toEngine(RowData row, int pos, LogicalType type) {
        return toEngine(RowData.createFieldGetter(type, pos).getFieldOrNull(row), type);
    }
}
