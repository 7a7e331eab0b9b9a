package dev.parquetlookup.tools;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupDatasetWriter;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The rows {@code prepare} reads: CSV or Parquet files (chosen by {@code --format}, or by the file
 * names), their column specs, and the reading progress (rows for Parquet, bytes for CSV).
 */
final class PrepareInput {

    @Nullable private final ParquetInput parquet;
    @Nullable private final CsvInput csv;

    private PrepareInput(@Nullable ParquetInput parquet, @Nullable CsvInput csv) {
        this.parquet = parquet;
        this.csv = csv;
    }

    static PrepareInput parquet(FileStore store, List<FileId> inputs, List<String> columns)
            throws IOException {
        return new PrepareInput(ParquetInput.open(store, inputs, columns), null);
    }

    static PrepareInput csv(
            FileStore store,
            List<FileId> inputs,
            char separator,
            @Nullable List<ColumnSpec> declared)
            throws IOException {
        return new PrepareInput(null, CsvInput.open(store, inputs, separator, declared));
    }

    List<ColumnSpec> columns() {
        return csv != null ? csv.columns() : parquet.columns();
    }

    /** Hands every input row to the writer and shows reading progress every 4,096 rows. */
    void read(LookupDatasetWriter writer, Progress progress) throws IOException {
        long expected = parquet == null ? 0 : parquet.totalRows();
        ParquetInput.RowSink sink =
                (row, physical) -> {
                    writer.write(row, physical);
                    long n = writer.rowCount();
                    if ((n & 4095) == 0) {
                        if (csv != null) {
                            progress.update(
                                    "reading",
                                    n,
                                    (double) csv.bytesRead() / Math.max(1, csv.totalBytes()));
                        } else {
                            progress.updateRows("reading", n, expected);
                        }
                    }
                };
        if (csv != null) {
            csv.read(sink);
        } else {
            parquet.read(sink);
        }
    }

    /**
     * Whether the input is CSV: {@code --format csv|parquet}, or for {@code auto} the file names
     * ({@code .csv}, {@code .tsv}, {@code .txt}), which must then agree.
     */
    static boolean isCsv(CommandLine commandLine, String format, String input, List<FileId> files) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "csv" -> true;
            case "parquet" -> false;
            case "auto" -> {
                boolean allCsv = files.stream().allMatch(f -> isCsvName(f.path()));
                boolean anyCsv = files.stream().anyMatch(f -> isCsvName(f.path()));
                if (anyCsv && !allCsv) {
                    throw new ParameterException(
                            commandLine,
                            "IN "
                                    + input
                                    + " mixes CSV and other files: give one format with --format");
                }
                yield allCsv;
            }
            default ->
                    throw new ParameterException(
                            commandLine, "--format " + format + ": use auto, parquet or csv");
        };
    }

    private static boolean isCsvName(String path) {
        String p = path.toLowerCase(Locale.ROOT);
        return p.endsWith(".csv") || p.endsWith(".tsv") || p.endsWith(".txt");
    }
}
