package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;

import io.delta.kernel.data.Row;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Delta tables written by the Delta kernel, served through {@code 'format' = 'delta'}: the table
 * format contract (every answer of every version equals the kernel's own reading of that version,
 * deletion vectors applied; versions the engine cannot serve exactly are refused while the last
 * good one keeps serving; column mapping and partition columns), plus checkpoints, inline deletion
 * vectors, column mapping by id and an empty table.
 */
class DeltaTableTest extends TableFormatContract<DeltaTestTable, Row> {

    @Override
    String format() {
        return DeltaFormat.NAME;
    }

    @Override
    DeltaTestTable create() {
        return DeltaTestTable.create(location(), Map.of());
    }

    @Override
    DeltaTestTable createWithRowDeletes() {
        return DeltaTestTable.create(location(), Map.of("delta.enableDeletionVectors", "true"));
    }

    @Override
    DeltaTestTable createPartitionedByRegion() {
        return DeltaTestTable.create(location(), Map.of(), List.of("region"));
    }

    @Override
    DeltaTestTable createForEvolution() {
        return DeltaTestTable.create(
                location(), Map.of("delta.columnMapping.mode", "name"), List.of("region"));
    }

    @Override
    void deleteRows(DeltaTestTable t, Row file, long... positions) throws IOException {
        t.deleteRows(file, false, positions);
    }

    @Override
    void removeDeleteFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("dim"))) {
            for (Path p :
                    files.filter(p -> p.getFileName().toString().startsWith("deletion_vector_"))
                            .toList()) {
                Files.delete(p);
            }
        }
    }

    @Override
    String missingDeletesError() {
        return "cannot read the deletion vector";
    }

    @Override
    Path latestMetadataFile(DeltaTestTable t) {
        return dir.resolve("dim/_delta_log").resolve(String.format("%020d.json", t.version()));
    }

    @Override
    List<String> corruptMetadataErrors() {
        return List.of(location().replace("file:///", "/"));
    }

    @Override
    String notATableError() {
        return "is not a Delta table";
    }

    @Override
    void renameColumn(DeltaTestTable t, String from, String to) throws IOException {
        // The schema with the column renamed, its mapping metadata kept.
        StructType result = new StructType();
        for (StructField f : t.schema().fields()) {
            result =
                    result.add(
                            f.getName().equals(from)
                                    ? new StructField(
                                            to, f.getDataType(), f.isNullable(), f.getMetadata())
                                    : f);
        }
        t.evolve(result);
    }

    @Override
    void addIntColumn(DeltaTestTable t, String name) throws IOException {
        t.evolve(
                t.schema().add(DeltaTestTable.mappedColumn(t.schema(), name, IntegerType.INTEGER)));
    }

    /** A checkpoint (Parquet, written by the kernel) of v4, then v5 read from it and a commit. */
    @Override
    void afterTheFourthVersion(RefreshingTable table, DeltaTestTable delta) throws IOException {
        delta.checkpoint();
        assertThat(dir.resolve("dim/_delta_log/00000000000000000004.checkpoint.parquet")).exists();
        delta.append(rows("e", "us", range(1_000, MAX_KEY, 1)));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 5);
        assertServes(open(), delta, 5);
    }

    @Test
    void deletionVectorsAreAppliedInlineAndOnDisk() throws IOException {
        DeltaTestTable delta = createWithRowDeletes();
        Row file = delta.append(rows("a", "eu", range(0, 1_000, 1)));
        delta.append(rows("b", "us", range(0, 50, 1))); // the same keys in another file
        RefreshingTable table = open();
        assertServes(table, delta, 2);

        // v3: a vector in a deletion_vector_<uuid>.bin file deletes rows 0, 3 and 7..9 (keys 0,
        // 3, 7, 8, 9) of the first file.
        Row withDv = delta.deleteRows(file, false, 0, 3, 7, 8, 9);
        assertThat(delta.read(3).get(3L)).containsExactly("3|b-3|us");
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 3);

        // v4: an inline vector replaces it: rows 500..599 deleted, 0..9 live again. The kernel's
        // own reader (4.0) cannot read inline vectors (its isInline() compares strings with
        // '=='), so the expected rows are v2's (read by the kernel) without the deleted ones.
        Row inlineDv = delta.deleteRows(withDv, true, range(500, 600, 1));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        Map<Long, List<String>> expected = delta.read(2);
        for (long key = 500; key < 600; key++) {
            expected.remove(key); // file "b" holds keys 0..49 only
        }
        assertServes(table, expected, "delta version 4");
        // The data files are unchanged: their cached metadata stayed (no new file opened).
        assertThat(table.files()).hasSize(2);

        // v5: an on-disk vector again; then its file is gone: the version cannot be served
        // without returning deleted rows.
        delta.deleteRows(inlineDv, false, 1, 2);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, delta, 5);
        removeDeleteFiles();
        assertThatThrownBy(this::open)
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("delta version 5")
                .hasMessageContaining("cannot read the deletion vector")
                .hasMessageContaining("restore the deletion vector file");
    }

    @Test
    void anEmptyTableIsNamed() {
        create();
        assertThatThrownBy(this::open)
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("delta version 0")
                .hasMessageContaining("has no data files");
    }

    /**
     * Found by a user (issue 28): an error on a column-mapped table listed the files' physical
     * names ({@code col-<uuid>}) instead of the table's columns. Every message naming the table's
     * columns names them as the table does, in both mapping modes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"name", "id"})
    void errorsOnAColumnMappedTableNameTheTablesColumns(String mode) throws IOException {
        DeltaTestTable delta =
                DeltaTestTable.create(location(), Map.of("delta.columnMapping.mode", mode));
        delta.appendValues(FormatTestTable.Row.values(rows("a", "eu", range(0, 300, 1))));
        delta.appendValues(FormatTestTable.Row.values(rows("b", "us", range(200, 500, 1))));
        assertThat(
                        delta.schema()
                                .fields()
                                .get(0)
                                .getMetadata()
                                .getString("delta.columnMapping.physicalName"))
                .startsWith("col-");

        // 'sort-key' naming a column the table does not have.
        for (List<String> key : List.of(List.of("nope"), List.of("id", "nope"))) {
            assertThatThrownBy(() -> open(location(), key, Map.of()))
                    .isInstanceOf(LookupFileException.BadSortKey.class)
                    .hasMessageContaining("has no column 'nope' for the sort key " + key)
                    .hasMessageContaining("its columns are [id, name, region]")
                    .hasMessageContaining("delta version 2")
                    .hasMessageNotContaining("col-");
        }

        // A lookup by, or projecting, a column that does not exist.
        RefreshingTable table = open();
        assertThatThrownBy(() -> table.plan(List.of("nope"), List.of("name")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Lookup key [nope]")
                .hasMessageContaining("sorted by [id]")
                .hasMessageNotContaining("col-");
        assertThatThrownBy(() -> table.plan(List.of("id"), List.of("name", "nope")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Column 'nope' does not exist")
                .hasMessageContaining("its columns are [id, name, region]")
                .hasMessageNotContaining("col-");
        assertServes(table, delta, 2);

        // A file not sorted by the key, refused ('unsorted-files' = 'refuse'): the refusal names
        // the table's column, not the file's col-<uuid>.
        long[] descending = new long[300];
        for (int i = 0; i < descending.length; i++) {
            descending[i] = 1_299 - i;
        }
        delta.unsorted().appendValues(FormatTestTable.Row.values(rows("c", "eu", descending)));
        RefreshingTable refusing =
                open(
                        TableConfig.builder(location())
                                .sortKey(List.of("id"))
                                .unsortedFiles(UnsortedFiles.REFUSE)
                                .metadataCache(cache)
                                .pageCache(null)
                                .build());
        assertThatThrownBy(
                        () ->
                                refusing.lookup(
                                        refusing.plan(List.of("id"), List.of("name")),
                                        new Object[] {1_100L}))
                .isInstanceOf(LookupFileException.Unsorted.class)
                .hasMessageContaining("is not sorted by 'id'")
                .hasMessageContaining("--key id")
                .hasMessageNotContaining("col-");
    }

    @Test
    void columnMappingByIdServesRenamesAndAddedColumns() throws IOException {
        servesRenamedAndAddedColumns(
                DeltaTestTable.create(
                        location(), Map.of("delta.columnMapping.mode", "id"), List.of("region")));
    }
}
