package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DictionaryKeys} on hand-built pages with what writers of sorted files rarely produce:
 * dictionaries not in key order (ranks differ from ids), duplicate dictionary entries, nulls, v1
 * and v2 levels, prefixes; compared with the value-by-value decode. And an unsorted
 * dictionary-encoded page is an error naming both keys, like a PLAIN one.
 */
class DictionaryKeysTest {

    @TempDir Path tmp;

    @Test
    void ranksSearchLikeValuesOnShuffledDictionaries() throws IOException {
        Random r = new Random(17);
        int checked = 0;
        for (int round = 0; round < 600; round++) {
            boolean strings = r.nextBoolean();
            boolean optional = r.nextBoolean();
            boolean v2 = r.nextBoolean();
            ColumnDescriptor column = column(strings, optional);
            KeyType type = KeyType.of(column.getPrimitiveType());
            // Distinct values, then a dictionary of them in random, sorted or reversed order,
            // sometimes with an entry twice.
            int distinct = 1 + r.nextInt(r.nextBoolean() ? 8 : 300);
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < distinct; i++) {
                Object v = strings ? randomBytes(r) : (Object) (r.nextLong() >> r.nextInt(60));
                if (values.stream().noneMatch(x -> type.compare(x, v) == 0)) {
                    values.add(v);
                }
            }
            List<Object> dictionary = new ArrayList<>(values);
            switch (r.nextInt(3)) {
                case 0 -> Collections.shuffle(dictionary, r);
                case 1 -> dictionary.sort(type::compare);
                default -> {
                    dictionary.sort(type::compare);
                    Collections.reverse(dictionary);
                }
            }
            if (r.nextInt(4) == 0) {
                dictionary.add(dictionary.get(r.nextInt(dictionary.size())));
            }
            int rows = 1 + r.nextInt(r.nextBoolean() ? 20 : 1500);
            boolean[] nulls = new boolean[rows];
            List<Integer> ids = new ArrayList<>();
            List<Object> pageValues = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                nulls[i] = optional && r.nextInt(5) == 0;
                if (!nulls[i]) {
                    pageValues.add(values.get(r.nextInt(values.size())));
                }
            }
            pageValues.sort(type::compare);
            for (Object v : pageValues) {
                List<Integer> candidates = new ArrayList<>();
                for (int id = 0; id < dictionary.size(); id++) {
                    if (type.compare(dictionary.get(id), v) == 0) {
                        candidates.add(id);
                    }
                }
                ids.add(candidates.get(r.nextInt(candidates.size())));
            }
            DataPage whole = page(column, ids, nulls, dictionary.size(), v2);
            int available = r.nextBoolean() ? rows : r.nextInt(rows + 1);
            DataPage page =
                    new DataPage(
                            whole.valueCount(),
                            whole.v2(),
                            whole.valueEncoding(),
                            whole.definitionEncoding(),
                            whole.data(),
                            whole.definitionOffset(),
                            whole.definitionLength(),
                            whole.valuesOffset(),
                            whole.length(),
                            available,
                            false);
            Dictionary dict = dictionary(column, dictionary);
            KeyPage.Order order = new KeyPage.Order(0, null);
            LookupContext ctx = new LookupContext();
            KeyPage fast =
                    DictionaryKeys.read(page, column, KeyDictionary.of(dict, type), order, ctx);
            KeyPage reference = KeyPage.Decoded.read(page, column, type, dict, order);
            String where = " round " + round + " dictionary " + dictionary.size();
            assertThat(fast.size()).as("keys" + where).isEqualTo(reference.size());
            for (int i = 0; i < reference.size(); i++) {
                assertThat(fast.row(i)).as("row " + i + where).isEqualTo(reference.row(i));
                assertThat(type.compare(fast.key(i), reference.key(i))).as("key" + where).isZero();
            }
            List<Object> probes = new ArrayList<>(values);
            probes.add(strings ? new byte[0] : (Object) Long.MIN_VALUE);
            probes.add(strings ? new byte[] {(byte) 0xff, (byte) 0xff} : (Object) Long.MAX_VALUE);
            for (Object v : values) {
                probes.add(strings ? Arrays.copyOf((byte[]) v, ((byte[]) v).length + 1) : v);
                if (!strings) {
                    probes.add((Long) v + 1);
                    probes.add((Long) v - 1);
                }
            }
            for (Object probe : probes) {
                assertThat(fast.lowerBound(probe))
                        .as("lower bound" + where)
                        .isEqualTo(reference.lowerBound(probe));
                assertThat(fast.upperBound(probe))
                        .as("upper bound" + where)
                        .isEqualTo(reference.upperBound(probe));
            }
            ctx.releaseScratch();
            checked++;
        }
        assertThat(checked).isEqualTo(600);
    }

    @Test
    void unsortedDictionaryEncodedPageIsAnErrorNamingBothKeys() throws IOException {
        ColumnSpec k = new ColumnSpec("k", ValueType.of(Kind.STRING), Storage.PLAIN, false);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        // Pages of 10 rows in order of each other, the rows inside page 1 out of order.
        List<Object[]> rows = new ArrayList<>();
        String[] keys = new String[30];
        for (int i = 0; i < 30; i++) {
            keys[i] = String.format("key%03d", i);
        }
        String swap = keys[13];
        keys[13] = keys[14];
        keys[14] = swap;
        for (int i = 0; i < 30; i++) {
            rows.add(new Object[] {keys[i].getBytes(StandardCharsets.UTF_8), (long) i});
        }
        Path file = tmp.resolve("unsorted-dictionary.parquet");
        WriterOptions options =
                new WriterOptions(
                        org.apache.parquet.hadoop.metadata.CompressionCodecName.UNCOMPRESSED,
                        true,
                        false,
                        false,
                        10,
                        1 << 20,
                        1 << 20,
                        1000,
                        true);
        ParquetJavaFiles.write(file, List.of(k, v), options, rows);
        TableConfig config =
                TableConfig.builder(file.toString())
                        .sortKey(List.of("k"))
                        .metadataCache(new MetadataCache(16 << 20))
                        .pageCache(null)
                        .unsortedFiles(
                                UnsortedFiles.REFUSE) // the refusal; served: UnsortedFilesTest
                        .build();
        try (DimensionTable table = DimensionTable.open(config)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(table.lookup(plan, new Object[] {"key003"})).hasSize(1);
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {"key015"}))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessage(
                            "File file:"
                                    + file.toAbsolutePath()
                                    + " is not sorted by 'k': in row group 0, page 1, key"
                                    + " 'key014' comes before 'key013'."
                                    + LookupFileException.Unsorted.advice("k"));
        }
    }

    private static ColumnDescriptor column(boolean strings, boolean optional) {
        Type.Repetition repetition = optional ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
        MessageType schema =
                strings
                        ? Types.buildMessage()
                                .primitive(PrimitiveTypeName.BINARY, repetition)
                                .as(LogicalTypeAnnotation.stringType())
                                .named("k")
                                .named("m")
                        : Types.buildMessage()
                                .primitive(PrimitiveTypeName.INT64, repetition)
                                .named("k")
                                .named("m");
        return schema.getColumns().get(0);
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(6)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) "ab\u00ff\u0000z".charAt(r.nextInt(5));
        }
        return b;
    }

    private static Dictionary dictionary(ColumnDescriptor column, List<Object> values)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object v : values) {
            if (v instanceof byte[] b) {
                out.write(le(b.length, 4), 0, 4);
                out.write(b, 0, b.length);
            } else {
                out.write(le((Long) v, 8), 0, 8);
            }
        }
        DictionaryPage page =
                new DictionaryPage(
                        BytesInput.from(out.toByteArray()),
                        values.size(),
                        Encoding.PLAIN_DICTIONARY);
        return Encoding.PLAIN_DICTIONARY.initDictionary(column, page);
    }

    private static byte[] le(long v, int bytes) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v);
        return Arrays.copyOf(b.array(), bytes);
    }

    /** A dictionary-encoded data page: levels (when optional) then bit width and id runs. */
    private static DataPage page(
            ColumnDescriptor column,
            List<Integer> ids,
            boolean[] nulls,
            int dictionarySize,
            boolean v2)
            throws IOException {
        int bitWidth = 32 - Integer.numberOfLeadingZeros(Math.max(0, dictionarySize - 1));
        RunLengthBitPackingHybridEncoder idRuns =
                new RunLengthBitPackingHybridEncoder(
                        bitWidth, 64, 1 << 20, new HeapByteBufferAllocator());
        for (int id : ids) {
            idRuns.writeInt(id);
        }
        byte[] values = idRuns.toBytes().toByteArray();
        byte[] levels = new byte[0];
        if (column.getMaxDefinitionLevel() > 0) {
            RunLengthBitPackingHybridEncoder levelRuns =
                    new RunLengthBitPackingHybridEncoder(
                            1, 64, 1 << 20, new HeapByteBufferAllocator());
            for (boolean isNull : nulls) {
                levelRuns.writeInt(isNull ? 0 : 1);
            }
            levels = levelRuns.toBytes().toByteArray();
        }
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        if (!v2 && levels.length > 0) {
            data.write(le(levels.length, 4), 0, 4);
        }
        data.write(levels, 0, levels.length);
        int valuesOffset = data.size();
        data.write(bitWidth);
        data.write(values, 0, values.length);
        return new DataPage(
                nulls.length,
                v2,
                Encoding.RLE_DICTIONARY,
                Encoding.RLE,
                data.toByteArray(),
                0,
                v2 ? levels.length : 0,
                v2 ? valuesOffset : 0);
    }
}
