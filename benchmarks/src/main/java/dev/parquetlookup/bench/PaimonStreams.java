package dev.parquetlookup.bench;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The Flink pieces of the {@code paimon} suite's jobs: the rows of the seed table and of the
 * events, their types, and the context environment Paimon's procedures need to find the embedded
 * cluster.
 */
final class PaimonStreams {

    static final InternalTypeInfo<RowData> EVENT_TYPE =
            InternalTypeInfo.of(
                    RowType.of(
                            new LogicalType[] {new BigIntType(false), new BigIntType(false)},
                            new String[] {"id", "k"}));

    static final InternalTypeInfo<RowData> SEED_TYPE =
            InternalTypeInfo.of(
                    RowType.of(
                            new LogicalType[] {
                                new BigIntType(false),
                                new VarCharType(false, VarCharType.MAX_LENGTH)
                            },
                            new String[] {"k", "v"}));

    private PaimonStreams() {}

    /**
     * Makes {@link StreamExecutionEnvironment#getExecutionEnvironment(Configuration)} return a
     * remote environment on the embedded cluster (what a cluster's client does for submitted
     * programs).
     */
    static final class ContextEnvironment extends StreamExecutionEnvironment {
        private ContextEnvironment() {}

        static void install(String host, int port) {
            initializeContextEnvironment(
                    conf -> {
                        Configuration c = new Configuration(conf);
                        c.set(DeploymentOptions.TARGET, "remote");
                        c.set(RestOptions.ADDRESS, host);
                        c.set(RestOptions.PORT, port);
                        return new StreamExecutionEnvironment(c);
                    });
        }

        static void uninstall() {
            resetContextEnvironment();
        }
    }

    /** Seed row {@code (k, md5hex(k))} as Flink's internal row. */
    static final class SeedRow implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long k) {
            return GenericRowData.of(k, StringData.fromString(Md5Hex.of(k)));
        }
    }

    /** Event {@code (id, key)} with the key from {@link LookupKeys}. */
    static final class KeyedEvent implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final LookupKeys keys;

        KeyedEvent(long rows, boolean skewed) {
            this.keys = new LookupKeys(rows, skewed);
        }

        @Override
        public RowData map(Long id) {
            return GenericRowData.of(id, keys.key(id));
        }
    }
}
