package dev.parquetlookup.tools;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupDatasetWriter;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The rows {@code prepare} reads: CSV ({@link CsvInput}) or Parquet ({@link ParquetInput}) files
 * (chosen by {@code --format}, or by the file names), their column specs, and the share read so far
 * (by rows for Parquet, by bytes for CSV).
 */
interface PrepareInput {

    /** Receives rows. */
    @FunctionalInterface
    interface RowSink {
        /**
         * @param physical per column, whether its value is the physical value of the written
         *     column's type ({@link LookupDatasetWriter#write(Object[], boolean[])}); null for none
         */
        void accept(Object[] row, @Nullable boolean[] physical) throws IOException;
    }

    /** The columns the rows are written with. */
    List<ColumnSpec> columns();

    /** Reads every row of every file, in file order. */
    void read(RowSink sink) throws IOException;

    /** The share of the input read after {@code rows} rows, in [0, 1], or negative if unknown. */
    double fraction(long rows);

    /** Hands every input row to the writer and shows reading progress every 4,096 rows. */
    default void read(LookupDatasetWriter writer, Progress progress) throws IOException {
        read(
                (row, physical) -> {
                    writer.write(row, physical);
                    long n = writer.rowCount();
                    if ((n & 4095) == 0) {
                        progress.update("reading", n, fraction(n));
                    }
                });
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
