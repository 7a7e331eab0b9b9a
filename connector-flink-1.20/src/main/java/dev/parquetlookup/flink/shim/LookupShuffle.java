package dev.parquetlookup.flink.shim;

import org.apache.flink.table.connector.source.LookupTableSource.LookupContext;
import org.apache.flink.table.data.RowData;

import java.io.Serializable;
import java.util.Optional;

/**
 * The Flink 1.20 side of the lookup join's custom shuffle: none. Flink 1.20 has no custom shuffle
 * for lookup joins (FLIP-462's {@code SupportsLookupCustomShuffle} and the LOOKUP hint option
 * {@code 'shuffle'} arrived in Flink 2.0), so the planner never asks and keeps its own
 * distribution.
 *
 * <p>The same name and shape as the Flink 2.x class in {@code connector-flink-2}, which the glue in
 * {@code connector/} is compiled against: the glue's classes link against this one on Flink 1.20.
 */
public final class LookupShuffle {

    private LookupShuffle() {}

    /** Never: Flink 1.20's planner has no custom shuffle to ask for. */
    public static boolean requested(LookupContext context) {
        return false;
    }

    /** A table source that could route lookup keys; no planner ability on Flink 1.20. */
    public interface Ability {

        /** The partitioner prepared for this join, empty to keep the input distribution. */
        Optional<Partitioner> lookupPartitioner();
    }

    /** Routes join keys to subtasks; on Flink 1.20 nothing asks it to. */
    public interface Partitioner extends Serializable {

        /** The subtask, in {@code [0, numPartitions)}, for these join keys. */
        int partition(RowData joinKeys, int numPartitions);

        /** Whether the same keys always go to the same subtask. */
        default boolean isDeterministic() {
            return true;
        }
    }
}
