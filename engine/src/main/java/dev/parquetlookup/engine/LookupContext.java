package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileRange;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns the state of one lookup in one file: the pages it already decoded (a key page read to find
 * the rows is reused to read them) and the way missing bytes come in. This base reads them
 * synchronously from the file's source; {@link AsyncLookup}'s context takes them from requests in
 * flight instead.
 */
class LookupContext {

    /** Pages decoded by this lookup in the current file. */
    final List<LoadedPage> loaded = new ArrayList<>(2);

    /**
     * The bytes of {@code ranges} of {@code loader}'s file, one array per range; {@code pages} are
     * the data pages they hold (placeholders, for read-ahead decisions), or empty.
     */
    byte[][] read(PageLoader loader, List<FileRange> ranges, List<LoadedPage> pages)
            throws IOException {
        return loader.source().readAll(ranges);
    }

    /** The bytes of one range (a dictionary page, a whole chunk). */
    byte[] read(PageLoader loader, FileRange range) throws IOException {
        return loader.source().read(range);
    }

    /** Starts over in the next file. */
    void nextFile(SortedFile file) {
        loaded.clear();
    }
}
