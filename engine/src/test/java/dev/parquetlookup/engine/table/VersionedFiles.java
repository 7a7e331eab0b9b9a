package dev.parquetlookup.engine.table;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;

/**
 * Files whose values encode their version, so any lookup result tells which version each of its
 * rows came from: key {@code k} has {@code rowsPerKey} rows {@code (k, seq, ver, "k/seq/ver")}.
 * Small pages and row groups make one key's rows cross page and row-group boundaries.
 */
final class VersionedFiles {

    static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("seq", ValueType.of(Kind.INT)),
                    ColumnSpec.required("ver", ValueType.of(Kind.INT)),
                    ColumnSpec.optional("label", ValueType.of(Kind.STRING)));

    static final List<String> PROJECTED = List.of("k", "seq", "ver", "label");

    private static final WriterOptions OPTIONS =
            WriterOptions.builder().rowsPerPage(16).rowsPerRowGroup(250).overwrite(true).build();

    private VersionedFiles() {}

    /**
     * Writes keys {@code [from, to)} of {@code version}, rows {@code seqFrom, seqFrom + seqStep,
     * ...} below {@code rowsPerKey} (a step of 2 deals one key's rows to two files).
     */
    static void write(
            Path file, long from, long to, int version, int rowsPerKey, int seqFrom, int seqStep)
            throws IOException {
        try (LookupFileWriter writer =
                LookupFileWriter.open(file.toString(), COLUMNS, List.of("k"), OPTIONS)) {
            for (long k = from; k < to; k++) {
                for (int seq = seqFrom; seq < rowsPerKey; seq += seqStep) {
                    writer.write(
                            new Object[] {
                                k, seq, version, (k + "/" + seq + "/" + version).getBytes()
                            });
                }
            }
        }
    }

    /**
     * Writes a version elsewhere (a hidden name in the same directory), gives it a modification
     * time that differs from every other version's, and renames it over {@code target} atomically:
     * publishing pattern (a).
     */
    static void replaceAtomically(
            Path target, long from, long to, int version, int rowsPerKey, long mtimeMillis)
            throws IOException {
        Path tmp = target.resolveSibling("." + target.getFileName() + ".v" + version + ".tmp");
        write(tmp, from, to, version, rowsPerKey, 0, 1);
        Files.setLastModifiedTime(tmp, FileTime.fromMillis(mtimeMillis));
        Files.move(
                tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * The version of a consistent result for key {@code k}, or an AssertionError saying why not.
     */
    static int versionOf(List<Object[]> rows, long k, int rowsPerKey) {
        if (rows.size() != rowsPerKey) {
            throw new AssertionError(
                    "key " + k + ": expected " + rowsPerKey + " rows, got " + describe(rows));
        }
        int version = (Integer) rows.get(0)[2];
        boolean[] seen = new boolean[rowsPerKey];
        for (Object[] row : rows) {
            int seq = (Integer) row[1];
            if ((Long) row[0] != k
                    || (Integer) row[2] != version
                    || seen[seq]
                    || !new String((byte[]) row[3]).equals(k + "/" + seq + "/" + version)) {
                throw new AssertionError(
                        "key " + k + ": rows mix versions or are wrong: " + describe(rows));
            }
            seen[seq] = true;
        }
        return version;
    }

    private static String describe(List<Object[]> rows) {
        StringBuilder s = new StringBuilder("[");
        for (Object[] row : rows) {
            s.append('(')
                    .append(row[0])
                    .append(", seq ")
                    .append(row[1])
                    .append(", ver ")
                    .append(row[2])
                    .append(") ");
        }
        return s.append(']').toString();
    }
}
