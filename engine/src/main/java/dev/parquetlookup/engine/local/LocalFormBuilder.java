package dev.parquetlookup.engine.local;

import dev.parquetlookup.engine.codec.EngineCodecs;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.FooterReader;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.SortKeyResolver;
import dev.parquetlookup.writer.RepagedCopy;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.parquet.io.LocalOutputFile;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * Applies {@link PageSizeRule} to a source file and writes its local form: {@link RepagedCopy} of
 * the source (same schema, rows, order and row groups) in the point-read page layout of {@link
 * WriterOptions#defaults()}, the sort order the source declares carried over in the footer, then
 * its CRC32C and manifest ({@link LocalFormFile}).
 */
final class LocalFormBuilder {

    /** The point-read layout of {@code prepare}: 256-row pages, page index, LZ4_RAW. */
    static final LocalFormBuilder DEFAULT = new LocalFormBuilder(WriterOptions.defaults());

    private final WriterOptions options;

    LocalFormBuilder(WriterOptions options) {
        this.options = options;
    }

    /** What the rule says about {@code source}. */
    record Plan(PageSizeRule.Verdict verdict) {}

    /**
     * The verdict on {@code source}: from a footer one of {@code caches} holds (with its row
     * group's page index if cached, else a page header read), else from the file's footer and a
     * page header or its offset index.
     */
    Plan plan(FileId source, FileStore store, Collection<MetadataCache> caches) throws IOException {
        for (MetadataCache cache : caches) {
            FileMetadata meta = cache.anyFileMetadata(source);
            if (meta != null) {
                try (RangeSource in = store.open(source)) {
                    return new Plan(
                            PageSizeRule.evaluate(
                                    meta, cache, in, WriterOptions.DEFAULT_PAGE_ROWS));
                }
            }
        }
        return new Plan(PageSizeRule.evaluate(store, source));
    }

    /**
     * Writes the local form of {@code source} into {@code form} (replacing what is there) and
     * returns its manifest, already written.
     */
    LocalFormFile.Manifest build(
            FileId source, FileStore store, List<String> keyColumns, LocalFormFile form)
            throws IOException {
        form.delete();
        RepagedCopy.Result result;
        try (RangeSource in = store.open(source)) {
            FooterReader.Footer footer = FooterReader.read(in);
            List<String> declared;
            try {
                declared =
                        SortKeyResolver.declaredSortKey(
                                source,
                                footer.thrift(),
                                footer.metadata().getFileMetaData().getSchema());
            } catch (LookupFileException e) {
                declared = List.of(); // the source is refused the same way when it is opened
            }
            // parquet-java cannot write sorting_columns: the declared order goes to the key-value
            // entry the engine also reads.
            Map<String, String> extra =
                    declared.isEmpty()
                            ? Map.of()
                            : Map.of(MetadataReader.SORT_KEY_METADATA, String.join(",", declared));
            HashSet<String> keys = new HashSet<>(keyColumns);
            keys.addAll(declared);
            result =
                    RepagedCopy.copy(
                            new RangeSourceInputFile(in),
                            // The engine's codecs: BROTLI and LZO too (Hadoop has none for them).
                            EngineCodecs.readOptions(),
                            new LocalOutputFile(form.temporary()),
                            keys,
                            options,
                            extra);
        }
        LocalFormFile.move(form.temporary(), form.data());
        LocalFormFile.Manifest manifest =
                new LocalFormFile.Manifest(
                        source,
                        Files.size(form.data()),
                        LocalFormFile.crc32c(form.data()),
                        result.rows());
        form.writeManifest(manifest);
        return manifest;
    }
}
