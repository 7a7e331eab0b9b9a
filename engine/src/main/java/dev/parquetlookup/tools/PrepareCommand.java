package dev.parquetlookup.tools;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupDatasetWriter;
import dev.parquetlookup.writer.WriterOptions;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code prepare IN OUT --key k}: rewrites Parquet or CSV into lookup-ready files. */
@Command(
        name = "prepare",
        mixinStandardHelpOptions = true,
        description = {
            "Rewrite Parquet files (a file or a directory) or CSV into lookup-ready Parquet files"
                    + " in OUT: sorted by the key, split into files of about --target-file-size,"
                    + " small pages, page index, no dictionary, LZ4_RAW, sort key declared.",
            "",
            "Examples:",
            "  prepare /data/raw/customers /data/lookup/customers --key id",
            "Output is all or nothing: files are written under OUT/_prepare-<id>/ and moved into"
                    + " OUT only when every row is in; a failure leaves OUT as it was.",
            "",
            "  prepare orders.csv /data/lookup/orders --key customer --key order_date"
                    + " --schema 'customer BIGINT, order_date DATE, total DECIMAL(10,2)'",
            ""
        })
final class PrepareCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "IN",
            description =
                    "Input: a Parquet file, a directory"
                            + " of Parquet files, or a CSV file (local path or Hadoop URI).")
    String input;

    @Parameters(
            index = "1",
            paramLabel = "OUT",
            description =
                    "Output directory for part-NNNNN.parquet"
                            + " files; must not hold Parquet files unless --overwrite.")
    String output;

    @Option(
            names = "--key",
            required = true,
            paramLabel = "COLUMN",
            description = "Sort key column, most significant first (repeat for a composite key).")
    List<String> keys;

    @Option(
            names = "--rows-per-page",
            paramLabel = "N",
            description = "Rows per data page (default: ${DEFAULT-VALUE}).")
    int rowsPerPage = WriterOptions.DEFAULT_PAGE_ROWS;

    @Option(
            names = "--row-group-rows",
            paramLabel = "N",
            description = "Rows per row group (default: ${DEFAULT-VALUE}).")
    int rowGroupRows = WriterOptions.DEFAULT_ROW_GROUP_ROWS;

    @Option(
            names = "--codec",
            paramLabel = "CODEC",
            description = "Compression: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    WriterOptions.Codec codec = WriterOptions.Codec.LZ4_RAW;

    @Option(
            names = "--target-file-size",
            paramLabel = "SIZE",
            description =
                    "Approximate size of each output file, e.g. 268435456 or 256MiB"
                            + " (default: ${DEFAULT-VALUE}).")
    String targetFileSize = "256MiB";

    @Option(
            names = "--dictionary",
            paramLabel = "COLUMN",
            description = "Dictionary-encode this column (repeatable; default: none).")
    List<String> dictionaryColumns = new ArrayList<>();

    @Option(
            names = "--columns",
            paramLabel = "A,B",
            split = ",",
            description = "Parquet input: keep only these columns (default: all).")
    List<String> columns = new ArrayList<>();

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description =
                    "Input format: auto (by file name: .csv is CSV), parquet or csv"
                            + " (default: ${DEFAULT-VALUE}).")
    String format = "auto";

    @Option(
            names = "--schema",
            paramLabel = "COLUMNS",
            description =
                    "CSV column types, e.g. 'k BIGINT NOT NULL, v STRING, p DECIMAL(10,2)';"
                            + " without it types are inferred. Types: "
                            + TextValues.TYPES
                            + ".")
    String schema;

    @Option(
            names = "--delimiter",
            paramLabel = "CHAR",
            description = "CSV field separator (default: ${DEFAULT-VALUE}; use '\\t' for tabs).")
    String delimiter = ",";

    @Option(
            names = "--sort-buffer-rows",
            paramLabel = "N",
            description =
                    "Rows sorted in memory before a run is spilled to disk"
                            + " (default: no bound; --sort-memory governs).")
    int sortBufferRows = WriterOptions.DEFAULT_SORT_BUFFER_ROWS;

    @Option(
            names = "--sort-memory",
            paramLabel = "SIZE",
            description =
                    "Memory for rows sorted in memory before a sorted run is spilled to disk,"
                            + " e.g. 512MiB (default: a quarter of the JVM heap, -Xmx). Raise -Xmx"
                            + " and this for fewer runs; lower it for less memory.")
    String sortMemory;

    @Option(
            names = "--temp-dir",
            paramLabel = "DIR",
            description = "Local directory for sort runs (default: java.io.tmpdir).")
    Path tempDir;

    @Option(
            names = "--overwrite",
            description =
                    "Replace Parquet files already in OUT (only once every new row is written).")
    boolean overwrite;

    @Mixin HadoopOptionsMixin hadoop;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long target = parse("--target-file-size", () -> Formats.parseSize(targetFileSize));
        long memory =
                sortMemory == null
                        ? defaultSortMemory()
                        : parse("--sort-memory", () -> Formats.parseSize(sortMemory));
        char separator = separator();
        requirePositive("--rows-per-page", rowsPerPage);
        requirePositive("--row-group-rows", rowGroupRows);
        requirePositive("--sort-buffer-rows", sortBufferRows);
        Progress progress = new Progress(err);
        try (FileStore store = HadoopFileStore.create(hadoop.options)) {
            List<FileId> inputs = InputFiles.list(spec, store, "IN", input);
            boolean csv = PrepareInput.isCsv(spec.commandLine(), format, input, inputs);
            List<FileId> existingOrNull = existingOutput(store);
            boolean outputExisted = existingOrNull != null;
            List<FileId> existing = existingOrNull == null ? List.of() : existingOrNull;
            checkOutput(inputs, existing);

            PrepareInput in =
                    csv
                            ? CsvInput.open(store, inputs, separator, declaredSchema())
                            : ParquetInput.open(store, inputs, columns);
            List<ColumnSpec> specs = in.columns();
            checkColumns(specs.stream().map(ColumnSpec::name).toList());

            StagedOutput staged = StagedOutput.into(output, outputExisted, hadoop.options);
            LookupDatasetWriter writer;
            try {
                writer =
                        LookupDatasetWriter.open(
                                staged.stagingDirectory(),
                                specs,
                                keys,
                                writerOptions(memory),
                                target);
            } catch (IllegalArgumentException e) {
                // The layout refuses the key (a nested column, a type that cannot be a key):
                // fixed by --key, so a usage error like a key that names no column.
                throw new ParameterException(spec.commandLine(), "--key: " + e.getMessage(), e);
            }
            List<String> published;
            try {
                writer.onProgress(rows -> progress.updateRows("writing", rows, writer.rowCount()));
                try {
                    in.read(writer, progress);
                } catch (IOException | RuntimeException e) {
                    try {
                        writer.abort();
                    } catch (IOException | RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                    throw e;
                }
                writer.close();
                published =
                        staged.publish(
                                writer.files().stream()
                                        .map(LookupDatasetWriter.WrittenFile::path)
                                        .toList(),
                                existing);
            } catch (IOException | RuntimeException e) {
                abandon(staged, writer.rowCount(), err, e);
                throw e;
            }
            report(out, store, published, writer, progress.elapsedNanos(), memory);
            out.flush();
        }
        return 0;
    }

    /** OUT must not hold Parquet files (unless --overwrite) nor any input file. */
    private void checkOutput(List<FileId> inputs, List<FileId> existing) {
        if (!existing.isEmpty() && !overwrite) {
            throw new ParameterException(
                    spec.commandLine(),
                    "OUT "
                            + output
                            + " already holds "
                            + existing.size()
                            + " Parquet file(s): choose an empty directory, or add"
                            + " --overwrite to replace them");
        }
        for (FileId in : inputs) {
            if (existing.stream().anyMatch(e -> e.path().equals(in.path()))) {
                throw new ParameterException(
                        spec.commandLine(),
                        "OUT "
                                + output
                                + " holds the input file "
                                + in.path()
                                + ": write to another directory");
            }
        }
    }

    /** --key and --dictionary name columns of the input. */
    private void checkColumns(List<String> names) {
        for (String key : keys) {
            if (!names.contains(key)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--key "
                                + key
                                + ": the input has no such column; its columns are "
                                + names);
            }
        }
        for (String column : dictionaryColumns) {
            if (!names.contains(column)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--dictionary " + column + ": the input has no such column " + names);
            }
        }
    }

    private WriterOptions writerOptions(long memory) {
        WriterOptions.Builder options =
                WriterOptions.builder()
                        .rowsPerPage(rowsPerPage)
                        .rowsPerRowGroup(rowGroupRows)
                        .codec(codec)
                        .sortInput(true)
                        .sortBufferRows(sortBufferRows)
                        .sortBufferBytes(memory)
                        .overwrite(true)
                        .hadoopOptions(hadoop.options);
        if (tempDir != null) {
            options.sortTempDir(tempDir);
        }
        dictionaryColumns.forEach(c -> options.dictionary(c, true));
        return options.build();
    }

    /** Removes the staging directory after a failure and says what state OUT is in. */
    private void abandon(StagedOutput staged, long rows, PrintWriter err, Exception e) {
        try {
            staged.abandon();
            err.println(
                    "prepare stopped after "
                            + Formats.count(rows)
                            + " row(s): nothing was published, OUT "
                            + output
                            + " is as it was.");
        } catch (IOException | RuntimeException cleanup) {
            e.addSuppressed(cleanup);
            err.println(
                    "prepare stopped and could not remove its staging directory "
                            + staged.stagingDirectory()
                            + " ("
                            + cleanup.getMessage()
                            + "); readers skip it, remove it by hand.");
        }
        err.flush();
    }

    private void report(
            PrintWriter out,
            FileStore store,
            List<String> published,
            LookupDatasetWriter writer,
            long elapsedNanos,
            long memory)
            throws IOException {
        long bytes = 0;
        for (String f : published) {
            bytes += store.stat(f).length();
        }
        out.printf(
                Locale.ROOT,
                "Wrote %s rows into %d file(s), %s, in %s: %s sorted by (%s), %s rows per page,"
                        + " %s rows per row group, %s.%n",
                Formats.count(writer.rowCount()),
                published.size(),
                Formats.bytes(bytes),
                Formats.millis(elapsedNanos),
                output,
                String.join(", ", keys),
                Formats.count(rowsPerPage),
                Formats.count(rowGroupRows),
                codec);
        if (writer.sortRuns() > 0) {
            out.printf(
                    Locale.ROOT,
                    "The sort spilled %d run(s) to disk (--sort-memory %s).%n",
                    writer.sortRuns(),
                    Formats.bytes(memory));
        }
    }

    /**
     * A quarter of the JVM's maximum heap: the sort's arrays grow by half when full and are
     * gathered into key order one column at a time, so rows take up to about twice their bytes.
     */
    static long defaultSortMemory() {
        return Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 4);
    }

    /** The Parquet files in OUT, or null when OUT does not exist. */
    private List<FileId> existingOutput(FileStore store) throws IOException {
        try {
            return store.list(output).stream()
                    .filter(f -> f.path().toLowerCase(Locale.ROOT).endsWith(".parquet"))
                    .toList();
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    /** The CSV columns given by {@code --schema}, or null to infer them from the header. */
    @Nullable
    private List<ColumnSpec> declaredSchema() {
        return schema == null ? null : parse("--schema", () -> TextValues.parseSchema(schema));
    }

    private char separator() {
        String d = delimiter.equals("\\t") ? "\t" : delimiter;
        if (d.length() != 1 || d.equals("\"") || d.equals("\n") || d.equals("\r")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--delimiter '" + delimiter + "': give one character such as , ; | or \\t");
        }
        return d.charAt(0);
    }

    private void requirePositive(String option, int value) {
        if (value <= 0) {
            throw new ParameterException(
                    spec.commandLine(), option + " must be a positive number, got " + value);
        }
    }

    private <T> T parse(String option, java.util.function.Supplier<T> parser) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage(), e);
        }
    }
}
