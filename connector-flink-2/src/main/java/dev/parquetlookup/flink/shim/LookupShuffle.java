package dev.parquetlookup.flink.shim;

import org.apache.flink.table.connector.source.LookupTableSource.LookupContext;
import org.apache.flink.table.connector.source.abilities.SupportsLookupCustomShuffle;

import java.util.Optional;

/**
 * The Flink 2.x side of the lookup join's custom shuffle (FLIP-462, the LOOKUP hint {@code
 * 'shuffle' = 'true'}): the planner ability, the partitioner type and the planner's request.
 *
 * <p>Each Flink line provides a class of this name and shape ({@code connector-flink-1.20} one that
 * offers no shuffle); the glue in {@code connector/} is compiled once against this one and runs
 * with either, so nothing else of the glue touches an API that differs between the lines.
 */
public final class LookupShuffle {

    private LookupShuffle() {}

    /** Whether the planner asks this join for a custom shuffle of its input. */
    public static boolean requested(LookupContext context) {
        return context.preferCustomShuffle();
    }

    /** A table source that can route lookup keys: Flink's planner ability on 2.x. */
    public interface Ability extends SupportsLookupCustomShuffle {

        /** The partitioner prepared for this join, empty to keep the input distribution. */
        Optional<Partitioner> lookupPartitioner();

        @Override
        default Optional<InputDataPartitioner> getPartitioner() {
            return lookupPartitioner().map(InputDataPartitioner.class::cast);
        }
    }

    /** Routes join keys to subtasks: Flink's {@code InputDataPartitioner} on 2.x. */
    public interface Partitioner extends SupportsLookupCustomShuffle.InputDataPartitioner {}
}
