package dev.parquetlookup.formats;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A directory of sorted Parquet files (the built-in {@code 'format' = 'files'}) written by the
 * engine's own writer: each change of the directory is a version, and what was written is the
 * independent reading (no other reader is involved, so this checks versions, not decoding). Data
 * files are named by their paths.
 */
final class PlainFilesTestTable implements FormatTestTable<Path> {

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("name", ValueType.of(Kind.STRING)),
                    ColumnSpec.optional("region", ValueType.of(Kind.STRING)));

    private final Path root;
    private final String location;
    private final Map<Path, List<Row>> files = new LinkedHashMap<>();
    private final List<Map<Long, List<String>>> versions = new ArrayList<>();
    private int fileCounter;

    /** An empty directory at {@code root}; version 0. */
    PlainFilesTestTable(Path root) throws IOException {
        this.root = Files.createDirectories(root);
        this.location = root.toUri().toString();
        commit();
    }

    @Override
    public String versionLabel(long version) {
        return location;
    }

    @Override
    public long version() {
        return versions.size() - 1;
    }

    @Override
    public Path append(List<Row> rows) throws IOException {
        Path file = write(rows);
        commit();
        return file;
    }

    @Override
    public void appendFiles(List<List<Row>> rows) throws IOException {
        for (List<Row> r : rows) {
            write(r);
        }
        commit();
    }

    @Override
    public Path overwrite(Path old, List<Row> rows) throws IOException {
        Path file = write(rows);
        drop(old);
        commit();
        return file;
    }

    @Override
    public void deleteFile(Path file) throws IOException {
        drop(file);
        commit();
    }

    @Override
    public Path dataFile(Path file) {
        return file;
    }

    @Override
    public void appendValues(List<Map<String, Object>> rows) {
        throw new UnsupportedOperationException("plain files have one schema here");
    }

    @Override
    public Map<Long, List<String>> readColumns(long version, List<String> columns) {
        if (!columns.equals(List.of("id", "name", "region"))) {
            throw new UnsupportedOperationException("plain files are read whole here");
        }
        Map<Long, List<String>> byId = new TreeMap<>();
        versions.get((int) version).forEach((id, rows) -> byId.put(id, new ArrayList<>(rows)));
        return byId;
    }

    private Path write(List<Row> rows) throws IOException {
        Path file = root.resolve(String.format("part-%05d.parquet", ++fileCounter));
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        COLUMNS,
                        List.of("id"),
                        WriterOptions.builder().sortInput(true).rowsPerPage(64).build())) {
            for (Row r : rows) {
                writer.write(new Object[] {r.id(), r.name(), r.region()});
            }
        }
        files.put(file, List.copyOf(rows));
        return file;
    }

    private void drop(Path file) throws IOException {
        Files.delete(file);
        files.remove(file);
    }

    /** The directory as it is now is the next version. */
    private void commit() {
        Map<Long, List<String>> byId = new HashMap<>();
        for (List<Row> rows : files.values()) {
            for (Row r : rows) {
                byId.computeIfAbsent(r.id(), k -> new ArrayList<>())
                        .add(FormatTestTable.text(r.id(), r.name(), r.region()));
            }
        }
        byId.values().forEach(l -> l.sort(null));
        versions.add(byId);
    }
}
