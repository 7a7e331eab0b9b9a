package dev.parquetlookup.testing;

import dev.parquetlookup.engine.lookup.TableConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A generated table on disk and its in-memory reference: the rows of each file, in file order,
 * answering the lookups the engine must answer.
 */
public final class GeneratedTable {

    /** One written file and its rows in file order. */
    public record GeneratedFile(Path path, List<Object[]> rows) {
        public GeneratedFile {
            rows = List.copyOf(rows);
        }
    }

    private final TableSpec spec;
    private final Path dir;
    private final List<GeneratedFile> files;
    private final Map<String, GeneratedFile> byName;
    private final List<Object[]> distinctKeys;

    GeneratedTable(TableSpec spec, Path dir, List<GeneratedFile> files) {
        this.spec = spec;
        this.dir = dir;
        this.files = List.copyOf(files);
        this.byName =
                files.stream()
                        .collect(
                                Collectors.toMap(
                                        f -> f.path().getFileName().toString(),
                                        Function.identity()));
        int[] keyIdx = spec.keyIndexes();
        TreeSet<Object[]> keys = new TreeSet<>(Values::compareKeys);
        for (GeneratedFile f : files) {
            for (Object[] row : f.rows()) {
                keys.add(keyOf(row, keyIdx, keyIdx.length));
            }
        }
        this.distinctKeys = new ArrayList<>(keys);
    }

    public TableSpec spec() {
        return spec;
    }

    public Path dir() {
        return dir;
    }

    public List<GeneratedFile> files() {
        return files;
    }

    /** A config for the table's directory: the sort key given when the spec says so. */
    public TableConfig.Builder config() {
        TableConfig.Builder b = TableConfig.builder(dir.toString());
        return spec.sortKeyInConfig() ? b.sortKey(spec.sortKey()) : b;
    }

    /** Every distinct full key tuple, sorted. */
    public List<Object[]> distinctKeys() {
        return distinctKeys;
    }

    /** Total rows over all files. */
    public int rowCount() {
        return files.stream().mapToInt(f -> f.rows().size()).sum();
    }

    /** A random existing row's key, its first {@code prefixLength} components. */
    public Object[] randomExistingKey(Random r, int prefixLength) {
        GeneratedFile f = files.get(r.nextInt(files.size()));
        Object[] row = f.rows().get(r.nextInt(f.rows().size()));
        return keyOf(row, spec.keyIndexes(), prefixLength);
    }

    /**
     * The reference answer: rows of the files in {@code fileOrder} (file names, the engine's file
     * order), each file's rows in file order, whose first {@code key.length} sort-key columns equal
     * {@code key}, projected to {@code projection} (column indexes). A null component matches
     * nothing.
     */
    public List<Object[]> expected(List<String> fileOrder, Object[] key, int[] projection) {
        int[] keyIdx = spec.keyIndexes();
        List<Object[]> out = new ArrayList<>();
        for (String name : fileOrder) {
            GeneratedFile f = byName.get(name);
            if (f == null) {
                throw new AssertionError(
                        "engine lists a file the generator did not write: " + name);
            }
            for (Object[] row : f.rows()) {
                if (matches(row, keyIdx, key)) {
                    Object[] projected = new Object[projection.length];
                    for (int i = 0; i < projection.length; i++) {
                        projected[i] = row[projection[i]];
                    }
                    out.add(projected);
                }
            }
        }
        return out;
    }

    /** Names of the data files, as the engine should list them (sorted by path). */
    public List<String> fileNames() {
        return files.stream().map(f -> f.path().getFileName().toString()).sorted().toList();
    }

    private static boolean matches(Object[] row, int[] keyIdx, Object[] key) {
        for (int k = 0; k < key.length; k++) {
            if (key[k] == null || !Values.equal(row[keyIdx[k]], key[k])) {
                return false;
            }
        }
        return true;
    }

    static Object[] keyOf(Object[] row, int[] keyIdx, int prefixLength) {
        Object[] key = new Object[prefixLength];
        for (int k = 0; k < prefixLength; k++) {
            key[k] = row[keyIdx[k]];
        }
        return key;
    }
}
