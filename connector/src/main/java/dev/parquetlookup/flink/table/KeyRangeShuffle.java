package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.lookup.KeyRangePartitioner;
import dev.parquetlookup.flink.lookup.LookupSpec;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.TableFiles;
import dev.parquetlookup.flink.shim.LookupShuffle;

import org.apache.flink.table.connector.source.LookupTableSource.LookupContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Optional;

/**
 * The table source's key-range routing of lookup keys for the LOOKUP hint {@code 'shuffle' =
 * 'true'} (FLIP-462: Flink 2.x only).
 *
 * <p>The Flink API it needs is behind {@link LookupShuffle}, which each Flink line's module
 * provides: on Flink 2.x it is the planner's {@code SupportsLookupCustomShuffle}; on Flink 1.20 the
 * planner never asks, so {@link #prepare} does nothing and the input keeps its distribution. Usage:
 * the table source implements {@link Ability}, calls {@link #prepare} from {@code
 * getLookupRuntimeProvider} and copies with {@link #copy}.
 */
final class KeyRangeShuffle {

    private static final Logger LOG = LoggerFactory.getLogger(KeyRangeShuffle.class);

    /** Range boundaries sampled for {@code 'shuffle' = 'true'}. */
    static final int SHUFFLE_SAMPLES = 1024;

    /** The planner ability; the table source only says where its shuffle state is. */
    interface Ability extends LookupShuffle.Ability {
        KeyRangeShuffle keyRangeShuffle();

        @Override
        default Optional<LookupShuffle.Partitioner> lookupPartitioner() {
            return keyRangeShuffle().partitioner();
        }
    }

    private final String tableName;

    /**
     * Set by {@link #prepare} when the planner prefers a custom shuffle: {@code getPartitioner}
     * takes no arguments, so the join keys have to be remembered in between.
     */
    @Nullable private KeyRangePartitioner partitioner;

    @Nullable private List<String> partitionerKeys;

    KeyRangeShuffle(String tableName) {
        this.tableName = tableName;
    }

    /** Samples the key ranges when the planner asks for a custom shuffle of this join. */
    void prepare(LookupContext context, ParquetLookupConfig config, LookupSpec spec) {
        if (!LookupShuffle.requested(context)) {
            return;
        }
        if (partitioner != null && spec.keyNames().equals(partitionerKeys)) {
            return; // the planner asks for the provider more than once per join
        }
        long start = System.nanoTime();
        List<Object[]> samples = TableFiles.sampleKeys(config, SHUFFLE_SAMPLES);
        partitioner = new KeyRangePartitioner(spec.normalizer(), samples);
        partitionerKeys = spec.keyNames();
        LOG.info(
                "Table '{}': key-range shuffle on {} with {} boundaries sampled in {} ms",
                config.tableName(),
                spec.normalizer().keyColumns(),
                samples.size(),
                (System.nanoTime() - start) / 1_000_000);
    }

    private Optional<LookupShuffle.Partitioner> partitioner() {
        if (partitioner == null) {
            LOG.warn(
                    "Table '{}': no key range known for 'shuffle' = 'true'; keeping the input"
                            + " distribution",
                    tableName);
        }
        return Optional.ofNullable(partitioner);
    }

    /** An independent copy for {@code DynamicTableSource.copy()}. */
    KeyRangeShuffle copy() {
        KeyRangeShuffle copy = new KeyRangeShuffle(tableName);
        copy.partitioner = partitioner;
        copy.partitionerKeys = partitionerKeys;
        return copy;
    }
}
