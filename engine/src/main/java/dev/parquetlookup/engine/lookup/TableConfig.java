package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.metadata.MetadataCache;

import javax.annotation.Nullable;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link DimensionTable} is opened with.
 *
 * <p>Example: {@code TableConfig.builder("file:///data/customers/").sortKey(List.of("id"))
 * .build()}.
 *
 * @param path a Parquet file or a directory of them, as a Hadoop URI or a plain local path
 * @param sortKey the columns the files are sorted by, or empty to take the files' {@code
 *     sorting_columns}; when both exist they must agree
 * @param hadoopOptions Hadoop configuration entries (e.g. {@code fs.s3a.endpoint})
 * @param metadataCache where parsed footers and page indexes are kept (share one per JVM)
 * @param pageCache decompressed hot pages, or {@code null} for none
 * @param mapLocalFiles whether local files are read through a memory mapping (the default) rather
 *     than with positioned reads; mapped files must not be rewritten in place
 * @param synthesizePageIndex whether a file without a page index (DuckDB, pyarrow by default) gets
 *     one built from its page headers on the first lookup into each row group (the default), so
 *     lookups read single pages; when off such files are read a whole key column chunk per lookup
 * @param unsortedFiles files not sorted by the key: served through a key index (the default) or
 *     refused
 * @param indexDirectory where key indexes are kept (shared by the JVM's tables; index files of
 *     unchanged files are reused by later tables), or null for {@link #DEFAULT_INDEX_DIRECTORY}
 * @param localForms where files with pages far larger than a lookup needs get their local form
 *     (built in the background, read once ready), or {@code null} to read every file as it is
 */
public record TableConfig(
        String path,
        List<String> sortKey,
        Map<String, String> hadoopOptions,
        MetadataCache metadataCache,
        @Nullable PageCache pageCache,
        boolean mapLocalFiles,
        boolean synthesizePageIndex,
        UnsortedFiles unsortedFiles,
        @Nullable Path indexDirectory,
        @Nullable LocalForms localForms) {

    /** Where key indexes are kept by default: {@code parquet-lookup-index} in java.io.tmpdir. */
    public static final Path DEFAULT_INDEX_DIRECTORY =
            Path.of(System.getProperty("java.io.tmpdir"), "parquet-lookup-index");

    public TableConfig {
        Objects.requireNonNull(path, "path");
        sortKey = List.copyOf(sortKey);
        hadoopOptions = Map.copyOf(hadoopOptions);
        Objects.requireNonNull(metadataCache, "metadataCache");
        Objects.requireNonNull(unsortedFiles, "unsortedFiles");
    }

    /** The directory key indexes are kept in: the configured one or the default. */
    public Path indexDirectoryOrDefault() {
        return indexDirectory != null ? indexDirectory : DEFAULT_INDEX_DIRECTORY;
    }

    /** This configuration for another path (a snapshot directory of the configured one). */
    public TableConfig withPath(String newPath) {
        return newPath.equals(path) ? this : toBuilder().path(newPath).build();
    }

    /** This configuration with another sort key (a table format's declared order). */
    public TableConfig withSortKey(List<String> newSortKey) {
        return toBuilder().sortKey(newSortKey).build();
    }

    /** This configuration with local forms kept in {@code forms} (null: none). */
    public TableConfig withLocalForms(@Nullable LocalForms forms) {
        return toBuilder().localForms(forms).build();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        return new Builder(path)
                .sortKey(sortKey)
                .hadoopOptions(hadoopOptions)
                .metadataCache(metadataCache)
                .pageCache(pageCache)
                .mapLocalFiles(mapLocalFiles)
                .synthesizePageIndex(synthesizePageIndex)
                .unsortedFiles(unsortedFiles)
                .indexDirectory(indexDirectory)
                .localForms(localForms);
    }

    public static Builder builder(String path) {
        return new Builder(path);
    }

    /** Builder with defaults: sort key from the files, no Hadoop options, JVM-wide cache. */
    public static final class Builder {
        private String path;
        private List<String> sortKey = List.of();
        private Map<String, String> hadoopOptions = Map.of();
        private MetadataCache metadataCache;
        private PageCache pageCache;
        private boolean mapLocalFiles = true;
        private boolean synthesizePageIndex = true;
        private UnsortedFiles unsortedFiles = UnsortedFiles.INDEX;
        private Path indexDirectory;
        private LocalForms localForms;

        private Builder(String path) {
            this.path = path;
        }

        public Builder path(String path) {
            this.path = path;
            return this;
        }

        public Builder sortKey(List<String> sortKey) {
            this.sortKey = sortKey;
            return this;
        }

        public Builder hadoopOptions(Map<String, String> hadoopOptions) {
            this.hadoopOptions = hadoopOptions;
            return this;
        }

        public Builder metadataCache(MetadataCache metadataCache) {
            this.metadataCache = metadataCache;
            return this;
        }

        public Builder pageCache(@Nullable PageCache pageCache) {
            this.pageCache = pageCache;
            return this;
        }

        public Builder mapLocalFiles(boolean mapLocalFiles) {
            this.mapLocalFiles = mapLocalFiles;
            return this;
        }

        public Builder synthesizePageIndex(boolean synthesizePageIndex) {
            this.synthesizePageIndex = synthesizePageIndex;
            return this;
        }

        public Builder unsortedFiles(UnsortedFiles unsortedFiles) {
            this.unsortedFiles = unsortedFiles;
            return this;
        }

        public Builder indexDirectory(@Nullable Path indexDirectory) {
            this.indexDirectory = indexDirectory;
            return this;
        }

        public Builder localForms(@Nullable LocalForms localForms) {
            this.localForms = localForms;
            return this;
        }

        public TableConfig build() {
            return new TableConfig(
                    path,
                    sortKey,
                    hadoopOptions,
                    metadataCache != null ? metadataCache : MetadataCache.defaultShared(),
                    pageCache,
                    mapLocalFiles,
                    synthesizePageIndex,
                    unsortedFiles,
                    indexDirectory,
                    localForms);
        }
    }
}
