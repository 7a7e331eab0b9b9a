package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad input gives a clear error, never a wrong answer. Each case pins the exception type and the
 * exact message, which names the file (and column) and says what to do.
 */
class BadInputTest {

    private static final ColumnSpec K =
            new ColumnSpec("k", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
    private static final ColumnSpec V =
            new ColumnSpec("v", ValueType.of(Kind.STRING), Storage.PLAIN, true);

    @TempDir Path tmp;

    /** A fresh cache per test: no metadata of another test's file of the same name. */
    private final MetadataCache cache = new MetadataCache(16 << 20);

    private TableConfig config(Path path, String... sortKey) {
        return TableConfig.builder(path.toString())
                .sortKey(List.of(sortKey))
                .metadataCache(cache)
                .unsortedFiles(UnsortedFiles.REFUSE) // the refusals; served: UnsortedFilesTest
                .indexDirectory(tmp.resolve("indexes")) // secondary keys
                .build();
    }

    /** The file as the engine names it in messages. */
    private static String uri(Path file) {
        return "file:" + file.toAbsolutePath();
    }

    private static List<Object[]> rows(long... keys) {
        List<Object[]> rows = new ArrayList<>();
        for (long k : keys) {
            rows.add(new Object[] {k, ("v" + k).getBytes(StandardCharsets.UTF_8)});
        }
        return rows;
    }

    private static long[] range(long from, long to) {
        long[] out = new long[(int) (to - from)];
        for (int i = 0; i < out.length; i++) {
            out[i] = from + i;
        }
        return out;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private Path writeKv(String name, WriterOptions options, long... keys) throws IOException {
        Path file = tmp.resolve(name);
        ParquetJavaFiles.write(file, List.of(K, V), options, rows(keys));
        return file;
    }

    private Path validFile(String name) throws IOException {
        return writeKv(
                name,
                WriterOptions.defaults().withRowsPerPage(10).withRowsPerRowGroup(100),
                range(0, 300));
    }

    // ------------------------------------------------------------------ unsorted

    @Test
    void unsortedPagesAreRefusedAtTheFirstLookupNamingFilePageAndBothKeys() throws IOException {
        Path file =
                writeKv(
                        "unsorted-pages.parquet",
                        WriterOptions.defaults().withRowsPerPage(10).withRowsPerRowGroup(1000),
                        concat(range(100, 110), range(0, 10)));
        // The page index is read on the first lookup into a row group, and checked then.
        DimensionTable table = DimensionTable.open(config(file, "k"));
        LookupPlan plan = table.plan(List.of("k"), List.of("v"));
        assertThatThrownBy(() -> table.lookup(plan, new Object[] {5L}))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " is not sorted by 'k': in row group 0, page 0 holds keys up to"
                                + " 109 but page 1 starts at 0."
                                + LookupFileException.Unsorted.advice("k"));
        table.close();
    }

    @Test
    void unsortedRowGroupsAreRefusedNamingFileRowGroupAndBothKeys() throws IOException {
        Path file =
                writeKv(
                        "unsorted-row-groups.parquet",
                        WriterOptions.defaults().withRowsPerPage(5).withRowsPerRowGroup(10),
                        concat(range(50, 60), range(10, 20)));
        assertThatThrownBy(() -> DimensionTable.open(config(file, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " is not sorted by 'k': row group 0 holds keys up to 59 but row"
                                + " group 1 starts at 10."
                                + LookupFileException.Unsorted.advice("k"));
    }

    /**
     * Disorder that page statistics cannot show (inside a page, or in the second key column within
     * a run of equal first keys) goes unnoticed at open; a lookup still never answers wrong.
     */
    @Test
    void unsortedRowsInsideAPageAreAnErrorAtLookup() throws IOException {
        // Pages of 10 rows: each page holds its 10 keys shuffled; page ranges are in order.
        List<Long> keys = new ArrayList<>();
        java.util.Random r = new java.util.Random(3);
        for (int page = 0; page < 5; page++) {
            List<Long> inPage = new ArrayList<>();
            for (long k = page * 10L; k < page * 10L + 10; k++) {
                inPage.add(k);
            }
            java.util.Collections.shuffle(inPage, r);
            keys.addAll(inPage);
        }
        Path file =
                writeKv(
                        "unsorted-in-page.parquet",
                        WriterOptions.defaults().withRowsPerPage(10).withRowsPerRowGroup(1000),
                        keys.stream().mapToLong(Long::longValue).toArray());
        // Statistics cannot show it, so open succeeds; decoding the key page finds it.
        try (DimensionTable table = DimensionTable.open(config(file, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            for (long k = 0; k < 50; k++) {
                int page = (int) (k / 10);
                List<Long> inPage = keys.subList(page * 10, page * 10 + 10);
                int i = 1;
                while (inPage.get(i) > inPage.get(i - 1)) {
                    i++;
                }
                Object[] key = {k};
                assertThatThrownBy(() -> table.lookup(plan, key))
                        .as("lookup of %d", k)
                        .isInstanceOf(LookupFileException.class)
                        .hasMessage(
                                "File "
                                        + uri(file)
                                        + " is not sorted by 'k': in row group 0, page "
                                        + page
                                        + ", key "
                                        + inPage.get(i - 1)
                                        + " comes before "
                                        + inPage.get(i)
                                        + "."
                                        + LookupFileException.Unsorted.advice("k"));
            }
        }
    }

    @Test
    void secondKeyColumnUnsortedStillGivesTheRightRows() throws IOException {
        Path file = tmp.resolve("second-key-unsorted.parquet");
        ColumnSpec a = new ColumnSpec("a", ValueType.of(Kind.INT), Storage.PLAIN, false);
        ColumnSpec b = new ColumnSpec("b", ValueType.of(Kind.INT), Storage.PLAIN, false);
        List<Object[]> rows = new ArrayList<>();
        java.util.Random r = new java.util.Random(4);
        for (int x = 0; x < 4; x++) {
            List<Integer> bs = new ArrayList<>();
            for (int y = 0; y < 40; y++) {
                bs.add(y);
            }
            java.util.Collections.shuffle(bs, r); // sorted by a, not by (a, b)
            for (int y : bs) {
                rows.add(new Object[] {x, y});
            }
        }
        ParquetJavaFiles.write(
                file,
                List.of(a, b),
                WriterOptions.defaults().withRowsPerPage(8).withRowsPerRowGroup(1000),
                rows);
        // Rows with equal leading keys are filtered on b one by one, so b's order does not matter.
        List<String> wrong = new ArrayList<>();
        try (DimensionTable table = DimensionTable.open(config(file, "a", "b"))) {
            LookupPlan plan = table.plan(List.of("a", "b"), List.of("a", "b"));
            for (int x = 0; x < 4; x++) {
                for (int y = 0; y < 40; y++) {
                    List<Object[]> found = table.lookup(plan, new Object[] {x, y});
                    if (found.size() != 1
                            || !found.get(0)[0].equals(x)
                            || !found.get(0)[1].equals(y)) {
                        wrong.add("(" + x + ", " + y + ") -> " + Values.describe(found, 3));
                    }
                }
            }
        }
        assertThat(wrong).as("silently wrong answers (key -> rows found)").isEmpty();
    }

    // ------------------------------------------------------------------ damaged files

    @Test
    void truncatedFileIsRefusedNamingTheFile() throws IOException {
        Path file = validFile("truncated.parquet");
        long length = Files.size(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length / 2);
        }
        assertThatThrownBy(() -> DimensionTable.open(config(file, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " is not a readable Parquet file: it starts with the magic bytes"
                                + " PAR1 but does not end with them (a truncated file, or a write"
                                + " that did not finish). Remove it from the table's path or"
                                + " rewrite it (plain Parquet files only: never rewrite or remove a"
                                + " Delta or Iceberg table's data files; restore such a file from a"
                                + " copy, or the table to a version without it).");
    }

    @Test
    void corruptFooterIsRefusedNamingTheFile() throws IOException {
        Path file = validFile("corrupt-footer.parquet");
        long length = Files.size(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(length - 8);
            int footerLength = Integer.reverseBytes(raf.readInt());
            byte[] garbage = new byte[footerLength];
            java.util.Arrays.fill(garbage, (byte) 0x5A);
            raf.seek(length - 8 - footerLength);
            raf.write(garbage);
        }
        assertThatThrownBy(() -> DimensionTable.open(config(file, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " is corrupt: the footer is damaged (Thrift: can not read class"
                                + " org.apache.parquet.format.FileMetaData: Socket is closed by"
                                + " peer). Rewrite the file (for example with 'prepare')"
                                + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                                + ".");
    }

    @Test
    void notAParquetFileIsRefusedNamingTheFile() throws IOException {
        Path file = tmp.resolve("customers.parquet");
        Files.writeString(file, "id,name\n1,Ada\n2,Grace\n");
        assertThatThrownBy(() -> DimensionTable.open(config(file, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " is not a readable Parquet file: it neither starts nor ends with"
                                + " the magic bytes PAR1 (it is some other kind of file). Remove it"
                                + " from the table's path or rewrite it"
                                + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                                + ".");
    }

    @Test
    void emptyFileIsRefusedNamingTheFile() throws IOException {
        Path file = Files.createFile(tmp.resolve("empty.parquet"));
        assertThatThrownBy(() -> DimensionTable.open(config(file, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " is empty (0 bytes): not a Parquet file. Remove it from the"
                                + " table's path or write it again"
                                + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                                + ".");
    }

    @Test
    void encryptedFooterIsRefusedNamingTheFile() throws IOException {
        Path file = validFile("encrypted.parquet");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Files.size(file) - 4);
            raf.write("PARE".getBytes(StandardCharsets.US_ASCII)); // an encrypted footer's magic
        }
        assertThatThrownBy(() -> DimensionTable.open(config(file, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " has an encrypted footer, which parquet-lookup does not read."
                                + " Rewrite it without encryption (plain Parquet files only: never"
                                + " rewrite a Delta or Iceberg table's data files).");
    }

    @Test
    void damagedPageFailsTheLookupNamingFileColumnAndPage() throws IOException {
        Path file = validFile("damaged-page.parquet");
        long pageStart;
        try (org.apache.parquet.hadoop.ParquetFileReader reader =
                org.apache.parquet.hadoop.ParquetFileReader.open(
                        new org.apache.parquet.io.LocalInputFile(file))) {
            pageStart = reader.getFooter().getBlocks().get(0).getColumns().get(1).getStartingPos();
        }
        // The page header of v's first page: garbage no Thrift reader accepts.
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(pageStart);
            byte[] garbage = new byte[12];
            java.util.Arrays.fill(garbage, (byte) 0xFF);
            raf.write(garbage);
        }
        try (DimensionTable table = DimensionTable.open(config(file, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {5L}))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageStartingWith(
                            "File "
                                    + uri(file)
                                    + ": page 0 of column 'v' in row group 0 (bytes "
                                    + pageStart
                                    + "..")
                    .hasMessageContaining(") cannot be read: ")
                    .hasMessageEndingWith(
                            ". The file is damaged or was changed in place: write it again,"
                                    + " replacing it atomically (plain Parquet files only: never"
                                    + " rewrite or remove a Delta or Iceberg table's data files;"
                                    + " restore such a file from a copy, or the table to a version"
                                    + " without it).");
        }
    }

    @Test
    void parquetFileWithoutRowsAnswersNothingAndIsSkippedBesideOthers() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("dir"));
        Path empty = dir.resolve("a-empty.parquet");
        ParquetJavaFiles.write(empty, List.of(K, V), WriterOptions.defaults(), List.of());
        try (DimensionTable table = DimensionTable.open(config(empty, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(table.lookup(plan, new Object[] {1L})).isEmpty();
        }
        ParquetJavaFiles.write(
                dir.resolve("b.parquet"), List.of(K, V), WriterOptions.defaults(), rows(1, 2, 2));
        try (DimensionTable table = DimensionTable.open(config(dir, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            List<Object[]> found = table.lookup(plan, new Object[] {2L});
            assertThat(found).hasSize(2);
            assertThat((byte[]) found.get(0)[0]).asString().isEqualTo("v2");
        }
    }

    @Test
    void emptyDirectoryIsRefusedNamingThePath() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("nothing-here"));
        Files.writeString(dir.resolve("_SUCCESS"), "");
        assertThatThrownBy(() -> DimensionTable.open(config(dir, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "Path "
                                + dir
                                + " holds no Parquet files (hidden and '_' files are skipped)."
                                + " Check the table's 'path'.");
    }

    @Test
    void missingPathIsRefusedNamingThePath() {
        Path missing = tmp.resolve("no-such-dir");
        assertThatThrownBy(() -> DimensionTable.open(config(missing, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasCauseInstanceOf(FileNotFoundException.class)
                .hasMessage("Path " + missing + " does not exist. Check the table's 'path'.");
    }

    // ------------------------------------------------------------------ keys

    @Test
    void missingKeyColumnIsRefusedNamingFileColumnAndColumns() throws IOException {
        Path file = validFile("kv.parquet");
        assertThatThrownBy(() -> DimensionTable.open(config(file, "id")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "File "
                                + uri(file)
                                + " has no column 'id' for the sort key [id]; its columns are [k,"
                                + " v]. Fix the 'sort-key' option or the table's columns.");
    }

    @Test
    void keyColumnOfANonKeyTypeIsRefused() throws IOException {
        Path file = tmp.resolve("double-key.parquet");
        ColumnSpec d = new ColumnSpec("d", ValueType.of(Kind.DOUBLE), Storage.PLAIN, false);
        List<Object[]> rows = List.of(new Object[] {1.5d}, new Object[] {2.5d});
        ParquetJavaFiles.write(file, List.of(d), WriterOptions.defaults(), rows);
        assertThatThrownBy(() -> DimensionTable.open(config(file, "d")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "Sort-key column 'd' of file "
                                + uri(file)
                                + " has type required double d, which cannot be a lookup key."
                                + " Keys may be INT, BIGINT, STRING, BINARY, DATE, TIMESTAMP or"
                                + " DECIMAL columns.");
    }

    @Test
    void filesWhoseKeyTypesDifferAreRefusedNamingBoth() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("mixed"));
        Path a = dir.resolve("a.parquet");
        Path b = dir.resolve("b.parquet");
        ParquetJavaFiles.write(a, List.of(K, V), WriterOptions.defaults(), rows(1, 2));
        ColumnSpec stringKey = new ColumnSpec("k", ValueType.of(Kind.STRING), Storage.PLAIN, false);
        ParquetJavaFiles.write(
                b,
                List.of(stringKey, V),
                WriterOptions.defaults(),
                List.<Object[]>of(new Object[] {"x".getBytes(StandardCharsets.UTF_8), null}));
        assertThatThrownBy(() -> DimensionTable.open(config(dir, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessage(
                        "Column 'k' is required int64 k in "
                                + uri(a)
                                + " but required binary k (STRING) in "
                                + uri(b)
                                + ". Files of one table must have the same columns, read as the"
                                + " same types (nullability, the physical storage of one logical"
                                + " type and lossless widening such as INT32 to INT64 or FLOAT to"
                                + " DOUBLE may differ): rewrite the odd files with that column's"
                                + " type, or move them out of the table's path (plain Parquet files"
                                + " only: never rewrite or remove a Delta or Iceberg table's data"
                                + " files; the table's own writers rewrite them, e.g. a"
                                + " compaction).");
    }

    @Test
    void lookupKeyOfTheWrongJavaTypeIsRefusedNamingTheColumn() throws IOException {
        Path file = validFile("kv.parquet");
        try (DimensionTable table = DimensionTable.open(config(file, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {"7"}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Key value 7 (String) for column 'k' must be Integer or Long.");
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {7L, 8L}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "Lookup on [k] needs 1 key value(s), got 2: pass one value per key"
                                    + " column, in that order.");
        }
    }

    @Test
    void planOnANonPrefixIsASecondaryKeyAndAMissingColumnIsRefused() throws IOException {
        Path file = tmp.resolve("ab.parquet");
        ColumnSpec a = new ColumnSpec("a", ValueType.of(Kind.INT), Storage.PLAIN, false);
        ColumnSpec b = new ColumnSpec("b", ValueType.of(Kind.INT), Storage.PLAIN, false);
        ParquetJavaFiles.write(
                file,
                List.of(a, b),
                WriterOptions.defaults(),
                List.of(new Object[] {1, 1}, new Object[] {1, 2}, new Object[] {2, 0}));
        try (DimensionTable table = DimensionTable.open(config(file, "a", "b"))) {
            // Not a leading part of the sort key (or out of its order): a secondary key.
            for (List<String> key : List.of(List.of("b"), List.of("b", "a"))) {
                LookupPlan secondary = table.plan(key, List.of("a"));
                assertThat(secondary.secondary()).as("%s", key).isTrue();
            }
            assertThat(table.lookup(table.plan(List.of("b"), List.of("a")), new Object[] {0}))
                    .extracting(r -> r[0])
                    .containsExactly(2);
            assertThatThrownBy(() -> table.plan(List.of("nope"), List.of("a")))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageContaining(
                            "Lookup key [nope] of "
                                    + file
                                    + " names column 'nope', which does not exist; its columns"
                                    + " are [a, b] and it is sorted by [a, b]");
            assertThatThrownBy(() -> table.plan(List.of("a"), List.of("nope")))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessage(
                            "Column 'nope' does not exist in "
                                    + file
                                    + "; its columns are [a, b]. Fix the table's columns or the"
                                    + " query's projection.");
            LookupPlan plan = table.plan(List.of("a"), List.of("b"));
            assertThat(table.lookup(plan, new Object[] {1}))
                    .extracting(r -> r[0])
                    .containsExactly(1, 2);
        }
    }

    // ------------------------------------------------------------------ nested columns

    @Test
    void nestedColumnsAreReadWhenProjectedAndUnreadableShapesRefused() throws IOException {
        MessageType schema =
                Types.buildMessage()
                        .required(PrimitiveTypeName.INT64)
                        .named("k")
                        .optionalList()
                        .optionalElement(PrimitiveTypeName.INT32)
                        .named("tags")
                        .optionalMap()
                        .key(PrimitiveTypeName.BINARY)
                        .as(LogicalTypeAnnotation.stringType())
                        .optionalValue(PrimitiveTypeName.INT32)
                        .named("attrs")
                        .optionalGroup()
                        .optional(PrimitiveTypeName.BINARY)
                        .as(LogicalTypeAnnotation.stringType())
                        .named("city")
                        .required(PrimitiveTypeName.INT32)
                        .named("zip")
                        .named("address")
                        .optional(PrimitiveTypeName.BINARY)
                        .as(LogicalTypeAnnotation.stringType())
                        .named("v")
                        // A MAP without values (a set): a shape the engine does not read.
                        .optionalGroup()
                        .as(LogicalTypeAnnotation.mapType())
                        .repeatedGroup()
                        .required(PrimitiveTypeName.INT32)
                        .named("key")
                        .named("key_value")
                        .named("keys")
                        .named("nested");
        SimpleGroupFactory factory = new SimpleGroupFactory(schema);
        List<Group> groups = new ArrayList<>();
        for (long k = 0; k < 50; k++) {
            Group g = factory.newGroup().append("k", k / 2);
            Group list = g.addGroup("tags");
            for (int i = 0; i < k % 3; i++) {
                list.addGroup("list").append("element", (int) k * 10 + i);
            }
            Group map = g.addGroup("attrs");
            map.addGroup("key_value").append("key", "a" + k).append("value", (int) k);
            g.addGroup("address").append("city", "c" + k).append("zip", (int) k);
            g.append("v", "v" + k);
            g.addGroup("keys").addGroup("key_value").append("key", (int) k);
            groups.add(g);
        }
        Path file = tmp.resolve("nested.parquet");
        ParquetJavaFiles.write(file, schema, WriterOptions.defaults().withRowsPerPage(4), groups);

        try (DimensionTable table = DimensionTable.open(config(file, "k"))) {
            assertThat(table.columns())
                    .extracting(ColumnSchema::name, c -> c.type().kind())
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("k", Kind.BIGINT),
                            org.assertj.core.groups.Tuple.tuple("tags", Kind.ARRAY),
                            org.assertj.core.groups.Tuple.tuple("attrs", Kind.MAP),
                            org.assertj.core.groups.Tuple.tuple("address", Kind.ROW),
                            org.assertj.core.groups.Tuple.tuple("v", Kind.STRING),
                            org.assertj.core.groups.Tuple.tuple("keys", Kind.NESTED));
            LookupPlan plan = table.plan(List.of("k"), List.of("v", "k"));
            List<Object[]> found = table.lookup(plan, new Object[] {7L});
            assertThat(found)
                    .extracting(r -> Values.describe(r))
                    .containsExactly("[\"v14\", 7L]", "[\"v15\", 7L]");
            List<Object[]> nested =
                    table.lookup(
                            table.plan(List.of("k"), List.of("tags", "attrs", "address")),
                            new Object[] {7L});
            assertThat(nested).hasSize(2);
            assertThat(nested.get(0)[0]).isEqualTo(List.of(140, 141));
            assertThat(nested.get(1)[0]).isEqualTo(List.of());
            assertThat(new ArrayList<Object>(((java.util.Map<?, ?>) nested.get(1)[1]).values()))
                    .containsExactly(15);
            assertThat((Object[]) nested.get(0)[2])
                    .satisfies(a -> assertThat(new String((byte[]) a[0])).isEqualTo("c14"))
                    .satisfies(a -> assertThat(a[1]).isEqualTo(14));
            assertThatThrownBy(() -> table.plan(List.of("k"), List.of("v", "keys")))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessage(
                            "Column 'keys' of "
                                    + file
                                    + " is "
                                    + schema.getType("keys")
                                    + ", which parquet-lookup cannot read (a nested shape it does"
                                    + " not read: a MAP without values, or a nested field of an"
                                    + " unsupported type). Leave it out of the table's columns or"
                                    + " the query.");
        }
    }

    // ------------------------------------------------------------------ files changing

    @Test
    void fileDeletedAfterOpenStillAnswersFromTheOpenedSnapshot() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("snap"));
        Path a = dir.resolve("a.parquet");
        Path b = dir.resolve("b.parquet");
        ParquetJavaFiles.write(a, List.of(K, V), WriterOptions.defaults(), rows(1, 2, 3));
        ParquetJavaFiles.write(b, List.of(K, V), WriterOptions.defaults(), rows(3, 4, 5));
        try (DimensionTable table = DimensionTable.open(config(dir, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            Files.delete(b);
            // The open table holds its files: the answer is the snapshot's, complete and right.
            assertThat(table.lookup(plan, new Object[] {3L}))
                    .extracting(r -> Values.describe(r))
                    .containsExactly("[3L, \"v3\"]", "[3L, \"v3\"]");
            assertThat(table.lookup(plan, new Object[] {5L}))
                    .extracting(r -> Values.describe(r))
                    .containsExactly("[5L, \"v5\"]");
        }
        try (DimensionTable table = DimensionTable.open(config(dir, "k"))) {
            assertThat(table.files()).extracting(f -> f.fileName()).containsExactly("a.parquet");
        }
        Files.delete(a);
        assertThatThrownBy(() -> DimensionTable.open(config(dir, "k")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("holds no Parquet files");
    }
}
