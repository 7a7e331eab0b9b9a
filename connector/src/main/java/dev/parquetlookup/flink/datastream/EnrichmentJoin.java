package dev.parquetlookup.flink.datastream;

import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.types.Row;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Objects;

/**
 * The last step of a {@link ParquetEnrichment} builder, after {@code join} or {@code joinAll}: an
 * optional output type, then {@link #build()}.
 *
 * @param <IN> the event type
 * @param <OUT> the output type
 */
public final class EnrichmentJoin<IN, OUT> {
    private final ParquetEnrichment<IN> builder;
    @Nullable private final JoinFunction<IN, Row, OUT> join;
    @Nullable private final JoinFunction<IN, List<Row>, OUT> joinAll;
    @Nullable private TypeInformation<OUT> outputType;

    EnrichmentJoin(
            ParquetEnrichment<IN> builder,
            @Nullable JoinFunction<IN, Row, OUT> join,
            @Nullable JoinFunction<IN, List<Row>, OUT> joinAll) {
        this.builder = builder;
        this.join = join;
        this.joinAll = joinAll;
    }

    /**
     * The output type, when Flink cannot infer it from the join function (a generic output type);
     * otherwise optional.
     */
    public EnrichmentJoin<IN, OUT> returns(TypeInformation<OUT> type) {
        this.outputType = Objects.requireNonNull(type, "type");
        return this;
    }

    /** Like {@link #returns(TypeInformation)} for a non-generic class. */
    public EnrichmentJoin<IN, OUT> returns(Class<OUT> type) {
        return returns(TypeInformation.of(type));
    }

    /**
     * Checks the key and columns against the files and returns the function.
     *
     * @throws org.apache.flink.table.api.ValidationException if the files cannot be read, a column
     *     does not exist or cannot be read, or the key is not a leading prefix of the sort key
     */
    public ParquetEnrichmentFunction<IN, OUT> build() {
        return builder.build(join, joinAll, outputType);
    }
}
