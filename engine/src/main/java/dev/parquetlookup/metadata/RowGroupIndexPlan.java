package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.RangeSource;

import java.io.IOException;
import java.util.List;

/**
 * How the row groups of one file get their page index on first use, row group by row group ({@link
 * RowGroupIndexes} runs the plan, single flight, into the metadata cache): read from the file's own
 * index ({@link LazyPageIndex}) or synthesized from the row group's page headers ({@link
 * LazySynthesis}). Immutable, taken from the footer at open, shared by every table that opens the
 * file version.
 *
 * <p>Example: {@code plan.load(3, source)} reads row group 3's ColumnIndex and OffsetIndexes (own)
 * or walks its chunks' page headers (synthesized); an asynchronous lookup fetches {@code
 * plan.ranges(3)} without holding a thread and hands the bytes to {@code plan.decode}.
 */
public sealed interface RowGroupIndexPlan permits LazyPageIndex, LazySynthesis {

    FileId file();

    int rowGroupCount();

    /** Row group {@code r} as the footer describes it: no page locations, no key page bounds. */
    RowGroupInfo footerRowGroup(int r);

    /** The byte ranges one asynchronous build of row group {@code r}'s index fetches. */
    List<FileRange> ranges(int r);

    /**
     * Row group {@code r} with its page index built from {@code bytes} (the reads of {@link
     * #ranges(int)}); {@code source} reads anything the ranges left out.
     *
     * @throws LookupFileException if the index or the pages are damaged, or out of order
     */
    RowGroupInfo decode(int r, byte[][] bytes, RangeSource source) throws IOException;

    /** Row group {@code r} with its page index, read through {@code source} on this thread. */
    default RowGroupInfo load(int r, RangeSource source) throws IOException {
        return decode(r, source.readAll(ranges(r)), source);
    }

    /** What building a row group's index does, for messages: "Reading the page index". */
    String action();

    /** Approximate heap size of this plan (footer row groups included). */
    long retainedBytes();
}
