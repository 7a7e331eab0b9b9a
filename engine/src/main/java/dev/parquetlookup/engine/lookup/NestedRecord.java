package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.NestedShape;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.util.ArrayList;
import java.util.List;

/**
 * Owns the path of one leaf column inside a nested top-level column, and placing one of its level
 * entries (repetition level, definition level, value) into the record being assembled: the inverse
 * of Parquet's shredding (Dremel record assembly). Groups become {@code Object[]} (one slot per
 * field), repeated fields {@code ArrayList}s of their instances, undefined optional fields stay
 * null; {@link NestedShape} then gives them their meaning. Every leaf of a column places its
 * entries into the same record and they agree on the shared parts (list lengths, null groups), as
 * the levels of a valid file do. Immutable; the per-entry state is the caller's.
 *
 * <p>Example: leaf {@code tags.list.element} of {@code optional group tags (LIST) {repeated group
 * list {optional binary element;}}} has definition levels 0 (tags null), 1 (tags empty), 2 (a null
 * element), 3 (an element); the record {@code ["a", null]} is the entries (r0, d3, "a"), (r1, d2).
 */
final class NestedRecord {

    private static final byte REQUIRED = 0;
    private static final byte OPTIONAL = 1;
    private static final byte REPEATED = 2;

    private final byte[] repetition;

    /** Definition level from which each node is defined. */
    private final int[] definedFrom;

    /** For repeated nodes, their repetition level (1 for the outermost); else 0. */
    private final int[] repetitionLevel;

    /** For groups, the slot of the next node on the path; for the leaf, unused. */
    private final int[] childSlot;

    /** For groups, their field count. */
    private final int[] width;

    private final int maxRepetition;

    NestedRecord(MessageType schema, ColumnDescriptor leaf) {
        String[] path = leaf.getPath();
        int depth = path.length;
        repetition = new byte[depth];
        definedFrom = new int[depth];
        repetitionLevel = new int[depth];
        childSlot = new int[depth];
        width = new int[depth];
        GroupType parent = schema;
        int def = 0;
        int rep = 0;
        for (int m = 0; m < depth; m++) {
            Type node = parent.getType(path[m]);
            if (node.isRepetition(Type.Repetition.REPEATED)) {
                repetition[m] = REPEATED;
                def++;
                rep++;
                repetitionLevel[m] = rep;
            } else if (node.isRepetition(Type.Repetition.OPTIONAL)) {
                repetition[m] = OPTIONAL;
                def++;
            }
            definedFrom[m] = def;
            if (m + 1 < depth) {
                GroupType group = node.asGroupType();
                width[m] = group.getFieldCount();
                childSlot[m] = group.getFieldIndex(path[m + 1]);
                parent = group;
            }
        }
        maxRepetition = rep;
    }

    int maxRepetition() {
        return maxRepetition;
    }

    /**
     * Places one entry of a record into {@code root[0]}.
     *
     * @param index for each repetition level (1..max), the index of the current element of the
     *     repeated node at that level, as the entries' repetition levels have advanced it
     * @param definition the entry's definition level
     * @param value the entry's value, when {@code definition} is the maximum; else null
     */
    @SuppressWarnings("unchecked")
    void place(Object[] root, int[] index, int definition, Object value) {
        Object[] holder = root;
        int slot = 0;
        int last = repetition.length - 1;
        for (int m = 0; m <= last; m++) {
            if (repetition[m] == OPTIONAL && definition < definedFrom[m]) {
                return;
            }
            if (repetition[m] == REPEATED) {
                List<Object> list = (List<Object>) holder[slot];
                if (list == null) {
                    list = new ArrayList<>(4);
                    holder[slot] = list;
                }
                if (definition < definedFrom[m]) {
                    return; // an empty list
                }
                int i = index[repetitionLevel[m]];
                if (m == last) {
                    list.add(value);
                    return;
                }
                Object[] instance;
                if (i < list.size()) {
                    instance = (Object[]) list.get(i);
                } else {
                    instance = new Object[width[m]];
                    list.add(instance);
                }
                holder = instance;
                slot = childSlot[m];
                continue;
            }
            if (m == last) {
                holder[slot] = value;
                return;
            }
            Object[] group = (Object[]) holder[slot];
            if (group == null) {
                group = new Object[width[m]];
                holder[slot] = group;
            }
            holder = group;
            slot = childSlot[m];
        }
    }
}
