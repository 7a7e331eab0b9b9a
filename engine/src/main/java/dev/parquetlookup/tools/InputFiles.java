package dev.parquetlookup.tools;

import dev.parquetlookup.engine.source.TableRoots;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;

/** The files a command reads, with the same messages and exit code (2) in every command. */
final class InputFiles {

    private InputFiles() {}

    /**
     * The data files at {@code path} (a file, or a directory listed recursively).
     *
     * @param label how the command's help names the argument, e.g. {@code PATH} or {@code IN}
     * @throws ParameterException when the path does not exist, holds no files, or is a Delta or
     *     Iceberg table's root (its files are not the table: {@link TableRoots})
     */
    static List<FileId> list(CommandSpec spec, FileStore store, String label, String path)
            throws IOException {
        List<FileId> files;
        try {
            files = store.list(path);
        } catch (FileNotFoundException e) {
            throw new ParameterException(
                    spec.commandLine(), label + " " + path + " does not exist: check the path");
        }
        if (files.isEmpty()) {
            throw new ParameterException(
                    spec.commandLine(),
                    label + " " + path + " holds no files (hidden and '_' files are skipped)");
        }
        String format = TableRoots.formatOf(path, store, files);
        if (format != null) {
            String command = spec.commandLine().getCommandName();
            throw new ParameterException(
                    spec.commandLine(),
                    TableRoots.describe(path, format)
                            + (command.equals("prepare")
                                    ? " prepare reads plain Parquet files only; serve the table"
                                            + " itself: --format "
                                            + format
                                            + " in get and inspect, 'format' = '"
                                            + format
                                            + "' in SQL."
                                    : " Read it as a table: --format " + format + "."));
        }
        return files;
    }
}
