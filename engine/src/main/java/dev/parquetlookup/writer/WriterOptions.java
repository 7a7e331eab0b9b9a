package dev.parquetlookup.writer;

import org.apache.parquet.column.ParquetProperties;

import javax.annotation.Nullable;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How {@link LookupFileWriter} lays out a file. The defaults are a point-read layout: 131,072 rows
 * per row group, 256 rows per page, no dictionary, LZ4_RAW (sort-key columns UNCOMPRESSED), page
 * index on, untruncated statistics, no bloom filter, data page v1. The seed study advised 1,024-row
 * pages; our layout benchmark on its dataset (10M rows, one thread, same run) measured a median
 * lookup of 14 us with 256-row pages against 35 us with 1,024 (and 10 us with 256 rows
 * UNCOMPRESSED, for columns that do not compress, at 13% more bytes), for metadata of 0.6% of the
 * file. Every value can be overridden:
 *
 * <pre>{@code
 * WriterOptions options = WriterOptions.builder()
 *         .rowsPerPage(256)
 *         .codec(WriterOptions.Codec.UNCOMPRESSED)
 *         .dictionary("country", true)
 *         .build();
 * }</pre>
 *
 * @param rowGroupRows rows per row group (the last one may hold fewer)
 * @param rowGroupBytes a row group is also closed when its buffered size reaches this many bytes
 * @param pageRows rows per data page (the last page of a row group may hold fewer)
 * @param pageBytes a page is also closed when it reaches this many bytes; the default (64 MiB) is
 *     high enough that {@code pageRows} decides
 * @param dictionary dictionary encoding for columns not named in {@code dictionaryColumns}
 * @param dictionaryColumns per-column dictionary overrides
 * @param codec the compression codec of every column without an override
 * @param columnCodecs per-column codec overrides; sort-key columns without one are written
 *     UNCOMPRESSED: every lookup reads and binary-searches a key page, a page of sorted integers
 *     barely compresses (2:1 with LZ4) and decompressing it cost as much as the value page's
 * @param pageIndex whether the ColumnIndex and OffsetIndex are written (off only to produce files
 *     like those of writers that omit them)
 * @param statisticsTruncateLength longest min/max value kept in statistics and the ColumnIndex; the
 *     default ({@link Integer#MAX_VALUE}) keeps them untruncated, which key columns need
 * @param writerVersion V1 (data page v1, PLAIN) or V2 (data page v2, delta encodings)
 * @param byteStreamSplitColumns columns encoded with BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32,
 *     INT64, FIXED_LEN_BYTE_ARRAY)
 * @param sortInput sort the rows by the sort key before writing (an external sort that spills to
 *     disk); when false, unsorted input is refused
 * @param sortBufferRows rows held in memory by the external sort before a run is spilled (default:
 *     no bound besides {@code sortBufferBytes})
 * @param sortBufferBytes estimated bytes of rows held in memory by the external sort before a run
 *     is spilled
 * @param sortTempDir directory for spilled runs, or null for {@code java.io.tmpdir}
 * @param overwrite replace an existing file instead of failing
 * @param hadoopOptions Hadoop configuration entries for the output file system
 * @param extraMetadata additional footer key-value metadata
 */
public record WriterOptions(
        int rowGroupRows,
        long rowGroupBytes,
        int pageRows,
        int pageBytes,
        boolean dictionary,
        Map<String, Boolean> dictionaryColumns,
        Codec codec,
        Map<String, Codec> columnCodecs,
        boolean pageIndex,
        int statisticsTruncateLength,
        WriterVersion writerVersion,
        Set<String> byteStreamSplitColumns,
        boolean sortInput,
        int sortBufferRows,
        long sortBufferBytes,
        @Nullable Path sortTempDir,
        boolean overwrite,
        Map<String, String> hadoopOptions,
        Map<String, String> extraMetadata) {

    public static final int DEFAULT_ROW_GROUP_ROWS = 131_072;
    public static final int DEFAULT_PAGE_ROWS = 256;
    public static final int DEFAULT_PAGE_BYTES = 64 << 20;

    /**
     * No row bound of its own: the byte budget governs (a fixed 1M-row bound made a 1M-row input
     * spill and merge from disk however much memory was given).
     */
    public static final int DEFAULT_SORT_BUFFER_ROWS = Integer.MAX_VALUE - 8;

    public static final long DEFAULT_SORT_BUFFER_BYTES = 128L << 20;

    /** Compression codecs. */
    public enum Codec {
        UNCOMPRESSED,
        SNAPPY,
        GZIP,
        ZSTD,
        LZ4_RAW
    }

    /** Parquet writer versions: V1 writes data page v1, V2 data page v2 with delta encodings. */
    public enum WriterVersion {
        V1,
        V2;

        ParquetProperties.WriterVersion parquet() {
            return this == V2
                    ? ParquetProperties.WriterVersion.PARQUET_2_0
                    : ParquetProperties.WriterVersion.PARQUET_1_0;
        }
    }

    public WriterOptions {
        positive("rowGroupRows", rowGroupRows);
        positive("rowGroupBytes", rowGroupBytes);
        positive("pageRows", pageRows);
        positive("pageBytes", pageBytes);
        positive("statisticsTruncateLength", statisticsTruncateLength);
        positive("sortBufferRows", sortBufferRows);
        positive("sortBufferBytes", sortBufferBytes);
        Objects.requireNonNull(codec, "codec");
        columnCodecs = Map.copyOf(columnCodecs);
        Objects.requireNonNull(writerVersion, "writerVersion");
        dictionaryColumns = Map.copyOf(dictionaryColumns);
        byteStreamSplitColumns = Set.copyOf(byteStreamSplitColumns);
        hadoopOptions = Map.copyOf(hadoopOptions);
        extraMetadata = Map.copyOf(extraMetadata);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /** The defaults. */
    public static WriterOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.rowGroupRows = rowGroupRows;
        b.rowGroupBytes = rowGroupBytes;
        b.pageRows = pageRows;
        b.pageBytes = pageBytes;
        b.dictionary = dictionary;
        b.dictionaryColumns.putAll(dictionaryColumns);
        b.codec = codec;
        b.columnCodecs.putAll(columnCodecs);
        b.pageIndex = pageIndex;
        b.statisticsTruncateLength = statisticsTruncateLength;
        b.writerVersion = writerVersion;
        b.byteStreamSplitColumns.addAll(byteStreamSplitColumns);
        b.sortInput = sortInput;
        b.sortBufferRows = sortBufferRows;
        b.sortBufferBytes = sortBufferBytes;
        b.sortTempDir = sortTempDir;
        b.overwrite = overwrite;
        b.hadoopOptions.putAll(hadoopOptions);
        b.extraMetadata.putAll(extraMetadata);
        return b;
    }

    /** The codec of {@code column}; {@code sortKeyColumn} says whether it is in the sort key. */
    public Codec codecFor(String column, boolean sortKeyColumn) {
        return columnCodecs.getOrDefault(column, sortKeyColumn ? Codec.UNCOMPRESSED : codec);
    }

    /** Whether {@code column} is dictionary encoded. */
    public boolean dictionaryFor(String column) {
        return dictionaryColumns.getOrDefault(column, dictionary);
    }

    /** Builder of {@link WriterOptions}; every setter overrides one default. */
    public static final class Builder {
        private int rowGroupRows = DEFAULT_ROW_GROUP_ROWS;
        private long rowGroupBytes = Long.MAX_VALUE;
        private int pageRows = DEFAULT_PAGE_ROWS;
        private int pageBytes = DEFAULT_PAGE_BYTES;
        private boolean dictionary = false;
        private final Map<String, Boolean> dictionaryColumns = new HashMap<>();
        private Codec codec = Codec.LZ4_RAW;
        private final Map<String, Codec> columnCodecs = new HashMap<>();
        private boolean pageIndex = true;
        private int statisticsTruncateLength = Integer.MAX_VALUE;
        private WriterVersion writerVersion = WriterVersion.V1;
        private final Set<String> byteStreamSplitColumns = new HashSet<>();
        private boolean sortInput = false;
        private int sortBufferRows = DEFAULT_SORT_BUFFER_ROWS;
        private long sortBufferBytes = DEFAULT_SORT_BUFFER_BYTES;
        private Path sortTempDir;
        private boolean overwrite = false;
        private final Map<String, String> hadoopOptions = new LinkedHashMap<>();
        private final Map<String, String> extraMetadata = new LinkedHashMap<>();

        private Builder() {}

        /** Rows per row group (default 131,072). */
        public Builder rowsPerRowGroup(int rows) {
            this.rowGroupRows = rows;
            return this;
        }

        /** Also close a row group at this buffered size (default: no byte limit). */
        public Builder rowGroupBytes(long bytes) {
            this.rowGroupBytes = bytes;
            return this;
        }

        /** Rows per data page (default 256). */
        public Builder rowsPerPage(int rows) {
            this.pageRows = rows;
            return this;
        }

        /** Also close a page at this size (default 64 MiB, so rows per page decides). */
        public Builder pageBytes(int bytes) {
            this.pageBytes = bytes;
            return this;
        }

        /** Dictionary encoding for every column without an override (default off). */
        public Builder dictionary(boolean enabled) {
            this.dictionary = enabled;
            return this;
        }

        /** Dictionary encoding for one column, overriding {@link #dictionary(boolean)}. */
        public Builder dictionary(String column, boolean enabled) {
            this.dictionaryColumns.put(column, enabled);
            return this;
        }

        /**
         * Compression codec of columns without an override (default LZ4_RAW; sort-key columns
         * default to UNCOMPRESSED).
         */
        public Builder codec(Codec codec) {
            this.codec = codec;
            return this;
        }

        /** Compression codec of one column, overriding {@link #codec(Codec)}. */
        public Builder codec(String column, Codec codec) {
            this.columnCodecs.put(column, Objects.requireNonNull(codec, "codec"));
            return this;
        }

        /** Whether to write the ColumnIndex and OffsetIndex (default on). */
        public Builder pageIndex(boolean enabled) {
            this.pageIndex = enabled;
            return this;
        }

        /** Truncate statistics and ColumnIndex min/max to this length (default: never). */
        public Builder statisticsTruncateLength(int length) {
            this.statisticsTruncateLength = length;
            return this;
        }

        /** Writer version (default V1). */
        public Builder writerVersion(WriterVersion version) {
            this.writerVersion = version;
            return this;
        }

        /** Encode {@code column} with BYTE_STREAM_SPLIT. */
        public Builder byteStreamSplit(String column) {
            this.byteStreamSplitColumns.add(column);
            return this;
        }

        /** Sort the input by the sort key instead of refusing unsorted input (default off). */
        public Builder sortInput(boolean enabled) {
            this.sortInput = enabled;
            return this;
        }

        /** Rows the external sort keeps in memory before spilling a run (default: no bound). */
        public Builder sortBufferRows(int rows) {
            this.sortBufferRows = rows;
            return this;
        }

        /**
         * Estimated bytes of rows the external sort keeps in memory before spilling a run (default
         * 128 MiB).
         */
        public Builder sortBufferBytes(long bytes) {
            this.sortBufferBytes = bytes;
            return this;
        }

        /** Directory for the external sort's runs (default {@code java.io.tmpdir}). */
        public Builder sortTempDir(Path dir) {
            this.sortTempDir = dir;
            return this;
        }

        /** Replace an existing file (default: fail if the file exists). */
        public Builder overwrite(boolean enabled) {
            this.overwrite = enabled;
            return this;
        }

        /** Hadoop configuration entries for the output file system. */
        public Builder hadoopOptions(Map<String, String> options) {
            this.hadoopOptions.putAll(options);
            return this;
        }

        /** An additional footer key-value metadata entry. */
        public Builder extraMetadata(String key, String value) {
            this.extraMetadata.put(key, value);
            return this;
        }

        public WriterOptions build() {
            return new WriterOptions(
                    rowGroupRows,
                    rowGroupBytes,
                    pageRows,
                    pageBytes,
                    dictionary,
                    dictionaryColumns,
                    codec,
                    columnCodecs,
                    pageIndex,
                    statisticsTruncateLength,
                    writerVersion,
                    byteStreamSplitColumns,
                    sortInput,
                    sortBufferRows,
                    sortBufferBytes,
                    sortTempDir,
                    overwrite,
                    hadoopOptions,
                    extraMetadata);
        }
    }
}
