package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.TimestampValue;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import io.delta.kernel.internal.util.ColumnMapping;
import io.delta.kernel.internal.util.ColumnMapping.ColumnMappingMode;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the data files of a Delta table version supply the table's columns ({@link ColumnBinding}):
 * with column mapping {@code none} a column is found by its name, with {@code name} by its physical
 * name ({@code delta.columnMapping.physicalName}), with {@code id} by its field id in files that
 * carry ids (else its physical name); a column added after a file was written reads as NULL from
 * it; a partition column (Delta never writes them into the data files) is the file's partition
 * value from the log, a constant compared with a lookup key before any read.
 */
final class DeltaColumns {

    private static final DateTimeFormatter TIMESTAMP =
            new DateTimeFormatterBuilder()
                    .appendPattern("yyyy-MM-dd HH:mm:ss")
                    .optionalStart()
                    .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
                    .optionalEnd()
                    .toFormatter();

    private final StructType schema;
    private final ColumnMappingMode mode;
    private final Set<String> partitionColumns;
    private final String table;
    private final String version;

    /** Bindings by partition values: the files of one partition share one. */
    private final Map<Map<String, String>, ColumnBinding> bindings = new HashMap<>();

    DeltaColumns(
            StructType schema,
            ColumnMappingMode mode,
            List<String> partitionColumns,
            String table,
            String version) {
        this.schema = schema;
        this.mode = mode;
        this.partitionColumns = Set.copyOf(partitionColumns);
        this.table = table;
        this.version = version;
    }

    /** The binding of a data file with {@code partitionValues} (keys: physical names). */
    ColumnBinding of(Map<String, String> partitionValues) {
        return bindings.computeIfAbsent(partitionValues, this::bind);
    }

    private ColumnBinding bind(Map<String, String> partitionValues) {
        List<ColumnBinding.Column> columns = new ArrayList<>();
        for (StructField field : schema.fields()) {
            String physical =
                    mode == ColumnMappingMode.NONE
                            ? field.getName()
                            : ColumnMapping.getPhysicalName(field);
            Type type = parquetType(field);
            if (isPartition(field)) {
                String text =
                        partitionValues.containsKey(physical)
                                ? partitionValues.get(physical)
                                : partitionValues.get(field.getName());
                columns.add(
                        ColumnBinding.Column.constant(field.getName(), type, value(field, text)));
            } else {
                Integer id = mode == ColumnMappingMode.ID ? ColumnMapping.getColumnId(field) : null;
                columns.add(ColumnBinding.Column.stored(field.getName(), id, physical, type));
            }
        }
        return ColumnBinding.of(columns);
    }

    private boolean isPartition(StructField field) {
        for (String p : partitionColumns) {
            if (p.equalsIgnoreCase(field.getName())) {
                return true;
            }
        }
        return false;
    }

    /** A partition value as the log writes it, in the engine's representation of its type. */
    private Object value(StructField field, String text) {
        if (text == null) {
            return null;
        }
        DataType type = field.getDataType();
        try {
            if (type instanceof StringType) {
                return text.getBytes(StandardCharsets.UTF_8);
            }
            if (text.isEmpty()) {
                return null; // Delta writes NULL partition values as empty or absent
            }
            if (type instanceof BooleanType) {
                return Boolean.parseBoolean(text);
            }
            if (type instanceof ByteType
                    || type instanceof ShortType
                    || type instanceof IntegerType) {
                return Integer.parseInt(text);
            }
            if (type instanceof LongType) {
                return Long.parseLong(text);
            }
            if (type instanceof FloatType) {
                return Float.parseFloat(text);
            }
            if (type instanceof DoubleType) {
                return Double.parseDouble(text);
            }
            if (type instanceof DecimalType d) {
                return new BigDecimal(text).setScale(d.getScale());
            }
            if (type instanceof DateType) {
                return (int) LocalDate.parse(text).toEpochDay();
            }
            if (type instanceof TimestampType || type instanceof TimestampNTZType) {
                return timestamp(text);
            }
            if (type instanceof BinaryType) {
                return text.getBytes(StandardCharsets.ISO_8859_1);
            }
        } catch (RuntimeException e) {
            throw refused(
                    field,
                    "its partition value '" + text + "' cannot be parsed: " + ErrorClause.of(e));
        }
        throw refused(field, "it is a partition column of type " + type);
    }

    private static TimestampValue timestamp(String text) {
        long micros;
        if (text.endsWith("Z") || text.contains("T")) {
            OffsetDateTime t = OffsetDateTime.parse(text);
            micros = t.toEpochSecond() * 1_000_000L + t.getNano() / 1_000;
        } else {
            LocalDateTime t = LocalDateTime.parse(text, TIMESTAMP);
            micros = t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000;
        }
        return TimestampValue.ofEpochMicros(micros);
    }

    private LookupFileException refused(StructField field, String why) {
        return new LookupFileException(
                version
                        + " of the Delta table at "
                        + table
                        + " cannot be served: column '"
                        + field.getName()
                        + "' "
                        + why
                        + ". Partition the table by a column of another type, or rewrite it"
                        + " unpartitioned.");
    }

    /** The Parquet type Delta writers give {@code field}, under its name. */
    private static Type parquetType(StructField field) {
        Type.Repetition repetition =
                field.isNullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
        DataType type = field.getDataType();
        Types.PrimitiveBuilder<PrimitiveType> b;
        if (type instanceof BooleanType) {
            b = Types.primitive(PrimitiveTypeName.BOOLEAN, repetition);
        } else if (type instanceof ByteType) {
            b =
                    Types.primitive(PrimitiveTypeName.INT32, repetition)
                            .as(LogicalTypeAnnotation.intType(8, true));
        } else if (type instanceof ShortType) {
            b =
                    Types.primitive(PrimitiveTypeName.INT32, repetition)
                            .as(LogicalTypeAnnotation.intType(16, true));
        } else if (type instanceof IntegerType) {
            b = Types.primitive(PrimitiveTypeName.INT32, repetition);
        } else if (type instanceof LongType) {
            b = Types.primitive(PrimitiveTypeName.INT64, repetition);
        } else if (type instanceof FloatType) {
            b = Types.primitive(PrimitiveTypeName.FLOAT, repetition);
        } else if (type instanceof DoubleType) {
            b = Types.primitive(PrimitiveTypeName.DOUBLE, repetition);
        } else if (type instanceof StringType) {
            b =
                    Types.primitive(PrimitiveTypeName.BINARY, repetition)
                            .as(LogicalTypeAnnotation.stringType());
        } else if (type instanceof BinaryType) {
            b = Types.primitive(PrimitiveTypeName.BINARY, repetition);
        } else if (type instanceof DateType) {
            b =
                    Types.primitive(PrimitiveTypeName.INT32, repetition)
                            .as(LogicalTypeAnnotation.dateType());
        } else if (type instanceof TimestampType || type instanceof TimestampNTZType) {
            b =
                    Types.primitive(PrimitiveTypeName.INT64, repetition)
                            .as(
                                    LogicalTypeAnnotation.timestampType(
                                            type instanceof TimestampType,
                                            LogicalTypeAnnotation.TimeUnit.MICROS));
        } else if (type instanceof DecimalType d) {
            b = WrittenTypes.decimal(d.getPrecision(), d.getScale(), repetition);
        } else {
            // Nested and other types: not readable by the engine (refused when projected); an
            // absent one only needs to read as a group.
            return Types.buildGroup(repetition)
                    .addField(Types.optional(PrimitiveTypeName.BINARY).named("absent"))
                    .named(field.getName());
        }
        return b.named(field.getName());
    }
}
