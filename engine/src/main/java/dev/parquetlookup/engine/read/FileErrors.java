package dev.parquetlookup.engine.read;

import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;

import org.apache.parquet.column.ColumnDescriptor;

/**
 * Owns the error texts of one file: a page that cannot be read, a page out of sort order. Each
 * names the file, row group, column, page and byte range, and says what to do.
 */
public final class FileErrors {

    private final FileMetadata meta;
    private final ColumnDescriptor[] leaves;

    public FileErrors(FileMetadata meta, ColumnDescriptor[] leaves) {
        this.meta = meta;
        this.leaves = leaves;
    }

    /**
     * The failure to read or decode {@code page} ({@code -1}: the dictionary page) of a leaf in a
     * row group. A lookup waiting for bytes ({@link PagesPending}) is not a failure: it is thrown
     * on unchanged.
     */
    public LookupFileException pageError(RowGroupInfo rg, int leaf, int page, Exception e) {
        if (e instanceof PagesPending pending) {
            throw pending;
        }
        if (e instanceof LookupFileException lfe) {
            return lfe;
        }
        ColumnChunkInfo chunk = rg.columns()[leaf];
        FileRange range =
                page >= 0 && chunk.pages() != null
                        ? chunk.pages().range(page)
                        : new FileRange(chunk.startOffset(), (int) chunk.totalCompressedSize());
        String what = page < 0 ? "the dictionary page" : "page " + page;
        return new LookupFileException(
                "File "
                        + meta.file()
                        + ": "
                        + what
                        + " of column '"
                        + String.join(".", leaves[leaf].getPath())
                        + "' in row group "
                        + rg.ordinal()
                        + " (bytes "
                        + range.offset()
                        + ".."
                        + range.end()
                        + ") cannot be read: "
                        + e.getMessage()
                        + ". The file is damaged or was changed in place: write it again, replacing"
                        + " it atomically"
                        + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                        + ".",
                e);
    }

    /** Two keys out of order inside one page of the sort key's column {@code keyIndex}. */
    LookupFileException.Unsorted unsortedPage(
            RowGroupInfo rg, int keyIndex, int page, Object before, Object after) {
        KeyType type = meta.keyTypes().get(keyIndex);
        String column = meta.keyNames().get(keyIndex);
        return new LookupFileException.Unsorted(
                "File "
                        + meta.file()
                        + " is not sorted by '"
                        + column
                        + "': in row group "
                        + rg.ordinal()
                        + ", page "
                        + page
                        + ", key "
                        + type.format(before)
                        + " comes before "
                        + type.format(after)
                        + "."
                        + LookupFileException.Unsorted.advice(column));
    }

    /** A dictionary-encoded page whose chunk has no dictionary page. */
    LookupFileException missingDictionary(RowGroupInfo rg, int leaf) {
        return new LookupFileException(
                "File "
                        + meta.file()
                        + ": column '"
                        + leaves[leaf].getPath()[0]
                        + "' in row group "
                        + rg.ordinal()
                        + " uses dictionary encoding but has no dictionary page."
                        + " The file is damaged: rewrite it"
                        + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                        + ".");
    }
}
