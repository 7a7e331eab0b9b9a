package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.lookup.LookupSpec;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;

import org.apache.flink.table.connector.source.LookupTableSource.LookupContext;

/**
 * The Flink 1.20 stand-in for the 2.x class of the same name in {@code connector/}: Flink 1.20 has
 * no custom shuffle for lookup joins (FLIP-462's {@code SupportsLookupCustomShuffle} and the LOOKUP
 * hint option {@code 'shuffle'} arrived in Flink 2.0), so on this line the table source never
 * routes keys and the planner keeps its own distribution. Same shape as the 2.x class, so {@link
 * ParquetLookupTableSource} is one source file for both lines.
 */
final class KeyRangeShuffle {

    /** No planner ability on Flink 1.20; the table source only says where its state is. */
    interface Ability {
        KeyRangeShuffle keyRangeShuffle();
    }

    KeyRangeShuffle(String tableName) {}

    /** Nothing to prepare: Flink 1.20 never asks for a custom shuffle. */
    void prepare(LookupContext context, ParquetLookupConfig config, LookupSpec spec) {}

    /** Stateless: the copy can be this object. */
    KeyRangeShuffle copy() {
        return this;
    }
}
