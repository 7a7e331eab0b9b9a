package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.flink.lookup.LookupSpec;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchemaValidatorTest {

    private static final List<ColumnSchema> FILE =
            List.of(
                    new ColumnSchema("id", ValueType.of(Kind.BIGINT), false, "required int64 id"),
                    new ColumnSchema(
                            "name",
                            ValueType.of(Kind.STRING),
                            true,
                            "optional binary name (STRING)"),
                    new ColumnSchema(
                            "credit",
                            new ValueType(Kind.DECIMAL, 12, 2),
                            true,
                            "optional int64 credit (DECIMAL(12,2))"),
                    new ColumnSchema(
                            "tags", ValueType.of(Kind.NESTED), true, "optional group tags (LIST)"),
                    new ColumnSchema(
                            "updated",
                            new ValueType(Kind.TIMESTAMP, 6, 0),
                            true,
                            "optional int64 updated (TIMESTAMP(MICROS,false))"));

    @Test
    void acceptsMatchingDeclarations() {
        assertThatCode(
                        () ->
                                SchemaValidator.validateColumns(
                                        "t",
                                        "f.parquet",
                                        FILE,
                                        List.of("credit", "id", "name", "updated"),
                                        List.of(
                                                new DecimalType(14, 2),
                                                new BigIntType(false),
                                                new VarCharType(3),
                                                new TimestampType(3))))
                .doesNotThrowAnyException();
    }

    @Test
    void listsEveryMismatchWithFileColumnAndBothTypes() {
        List<String> names = List.of("id", "Name", "credit", "tags", "missing");
        List<LogicalType> types =
                List.of(
                        new IntType(),
                        new VarCharType(5),
                        new DecimalType(10, 2),
                        new VarCharType(5),
                        new IntType());
        assertThatThrownBy(
                        () ->
                                SchemaValidator.validateColumns(
                                        "cat.db.customers",
                                        "file:/data/c.parquet",
                                        FILE,
                                        names,
                                        types))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining(
                        "Table 'cat.db.customers' does not match its Parquet files"
                                + " (file:/data/c.parquet):")
                .hasMessageContaining(
                        "column 'id': Parquet type 'required int64 id' is read as BIGINT,"
                                + " declared SQL type INT; declare it as BIGINT.")
                .hasMessageContaining(
                        "column 'Name' (SQL type VARCHAR(5)) is not in the files (names are"
                                + " case-sensitive: the files have 'name')")
                .hasMessageContaining(
                        "column 'credit': Parquet type 'optional int64 credit (DECIMAL(12,2))'"
                                + " is read as DECIMAL(12, 2), declared SQL type DECIMAL(10, 2);"
                                + " declare it as DECIMAL(12, 2).")
                .hasMessageContaining(
                        "column 'tags': Parquet type 'optional group tags (LIST)' is read as"
                                + " NESTED, declared SQL type VARCHAR(5); parquet-lookup cannot"
                                + " read this type (a MAP without values, a nested field of an"
                                + " unsupported type, or INTERVAL, FLOAT16, unsigned 64-bit);"
                                + " remove the column from the table.")
                .hasMessageContaining("column 'missing' (SQL type INT) is not in the files;");
    }

    private static final List<ColumnSchema> GNV =
            List.of(
                    new ColumnSchema("g", ValueType.of(ValueType.Kind.INT), false, "int32 g"),
                    new ColumnSchema(
                            "name", ValueType.of(ValueType.Kind.STRING), true, "binary name"),
                    new ColumnSchema("v", ValueType.of(ValueType.Kind.DOUBLE), true, "double v"));

    private static List<String> engineKey(
            List<String> keys, ParquetLookupOptions.SecondaryKeys secondary) {
        return LookupSpec.engineKey(
                "cat.db.t", "file:/d", keys, List.of("g", "name"), GNV, secondary);
    }

    @Test
    void joinKeysWithASortKeyPrefixUseItAndOthersAreSecondaryKeys() {
        ParquetLookupOptions.SecondaryKeys index = ParquetLookupOptions.SecondaryKeys.INDEX;
        assertThat(engineKey(List.of("name", "g"), index)).containsExactly("g", "name");
        assertThat(engineKey(List.of("g"), index)).containsExactly("g");
        assertThat(engineKey(List.of("g", "v"), index)).containsExactly("g");
        // No sort-key prefix: a secondary key of the columns that can be keys (v is DOUBLE).
        assertThat(engineKey(List.of("name"), index)).containsExactly("name");
        assertThat(engineKey(List.of("v", "name"), index)).containsExactly("name");
        assertThat(LookupSpec.isSortKeyPrefix(List.of("name"), List.of("g", "name"))).isFalse();
        assertThat(LookupSpec.isSortKeyPrefix(List.of("g"), List.of("g", "name"))).isTrue();
        assertThatThrownBy(() -> engineKey(List.of("v"), index))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("none of these columns can be a lookup key");
    }

    @Test
    void secondaryKeysRefusedKeepTheRefusal() {
        assertThat(engineKey(List.of("g", "v"), ParquetLookupOptions.SecondaryKeys.REFUSE))
                .containsExactly("g");
        assertThatThrownBy(
                        () -> engineKey(List.of("name"), ParquetLookupOptions.SecondaryKeys.REFUSE))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Lookup join on table 'cat.db.t' uses the key [name], but the files"
                                + " (file:/d) are sorted by [g, name] and 'secondary-keys' ="
                                + " 'refuse': a lookup join must give the sort key or a leading"
                                + " prefix of it, i.e. an equality condition on 'g' at least. Fix:"
                                + " join on [g, name], set 'secondary-keys' = 'index' (the"
                                + " default: a key index per file on the join's columns), or"
                                + " rewrite the files sorted by [name] (e.g. with the 'prepare'"
                                + " tool; plain Parquet files only: never rewrite a Delta or"
                                + " Iceberg table's data files); if the files are already sorted"
                                + " that way but do not declare it, set 'sort-key' = 'name'.");
    }

    @Test
    void typeMappingCoversEveryKind() {
        assertThat(TypeMapping.accepts(ValueType.of(Kind.STRING), new CharType(3))).isTrue();
        assertThat(TypeMapping.accepts(ValueType.of(Kind.BINARY), new BinaryType(3))).isTrue();
        assertThat(TypeMapping.accepts(ValueType.of(Kind.BINARY), new VarBinaryType(3))).isTrue();
        assertThat(TypeMapping.accepts(new ValueType(Kind.TIME, 6, 0), new TimeType(0))).isTrue();
        assertThat(
                        TypeMapping.accepts(
                                new ValueType(Kind.TIMESTAMP_LTZ, 9, 0),
                                new LocalZonedTimestampType(3)))
                .isTrue();
        assertThat(
                        TypeMapping.accepts(
                                new ValueType(Kind.TIMESTAMP_LTZ, 9, 0), new TimestampType(9)))
                .isFalse();
        assertThat(TypeMapping.accepts(new ValueType(Kind.DECIMAL, 5, 2), new DecimalType(5, 3)))
                .isFalse();
        for (Kind kind : Kind.values()) {
            ValueType type =
                    switch (kind) {
                        case ARRAY -> ValueType.array(ValueType.of(Kind.INT));
                        case MAP ->
                                ValueType.map(ValueType.of(Kind.STRING), ValueType.of(Kind.INT));
                        case ROW ->
                                ValueType.row(
                                        List.of(new ValueType.Field("a", ValueType.of(Kind.INT))));
                        default -> new ValueType(kind, kind == Kind.DECIMAL ? 10 : 6, 0);
                    };
            String suggestion = TypeMapping.suggest(type);
            if (kind == Kind.NESTED || kind == Kind.UNSUPPORTED) {
                assertThat(suggestion).isNull();
            } else {
                assertThat(suggestion).as(kind.name()).isNotBlank();
            }
        }
    }
}
