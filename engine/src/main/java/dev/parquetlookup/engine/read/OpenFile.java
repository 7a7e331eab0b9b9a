package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.io.RangeSource.FileRange;

import java.util.List;

/**
 * The file a lookup reads now, as the lookup's context sees it ({@link LookupContext#nextFile}):
 * its reads, and what else a cold lookup will need with a key page, for an asynchronous lookup's
 * read-ahead.
 */
public interface OpenFile {

    /** The reads of this file (one per open file). */
    InFlightReads reads();

    /**
     * Ranges worth reading together with the missing pages {@code missing} by a lookup returning
     * {@code columns} (see {@link PageLoader#readAhead}).
     */
    List<FileRange> readAhead(List<LoadedPage> missing, List<String> columns);
}
