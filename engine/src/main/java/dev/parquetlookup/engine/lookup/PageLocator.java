package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.KeyPage;
import dev.parquetlookup.engine.page.KeyStop;
import dev.parquetlookup.engine.read.FileErrors;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.engine.read.PageLoader;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.engine.read.PagesPending;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.column.ColumnDescriptor;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;

/**
 * Owns finding the rows of a key in one file: row groups by the leading key's min/max (binary
 * search), pages by the ColumnIndex bounds (binary search, narrowed by later key columns), then the
 * key pages, loaded through the {@link PageLoader} and searched.
 */
final class PageLocator {

    private final FileMetadata meta;
    private final ColumnDescriptor[] leaves;
    private final PageLoader loader;
    private final FileErrors errors;

    PageLocator(
            FileMetadata meta, ColumnDescriptor[] leaves, PageLoader loader, FileErrors errors) {
        this.meta = meta;
        this.leaves = leaves;
        this.loader = loader;
        this.errors = errors;
    }

    /**
     * Adds the spans of rows whose first {@code key.length} sort-key columns equal {@code key}
     * (comparable forms, see {@link KeyType}).
     */
    void findRows(Object[] key, List<SortedFile.RowSpan> out, LookupContext ctx)
            throws IOException {
        KeyRanges rowGroups = meta.rowGroupKeys();
        int first = rowGroups.firstWithMaxAtLeast(key[0]);
        int last = rowGroups.lastWithMinAtMost(key[0]);
        // An asynchronous lookup goes on past row groups whose pages are still to come, so one
        // wave of requests serves every row group a key run crosses.
        boolean pending = false;
        for (int e = first; e <= last; e++) {
            try {
                // A lazily read page index comes in here, on the first lookup into the row group.
                RowGroupInfo rg = ctx.rowGroup(meta, loader.source(), rowGroups.entry(e));
                findInRowGroup(rg, key, out, ctx);
            } catch (PagesPending p) {
                pending = true;
            }
        }
        if (pending) {
            throw PagesPending.INSTANCE;
        }
    }

    private void findInRowGroup(
            RowGroupInfo rg, Object[] key, List<SortedFile.RowSpan> out, LookupContext ctx)
            throws IOException {
        int keyLeaf = meta.keyLeaves()[0];
        long from;
        long to;
        double share = 0; // where in its page the key is expected, when one page may hold it
        if (rg.hasPageIndex(keyLeaf)) {
            KeyRanges pages = rg.keyPages()[0];
            int first = pages.firstWithMaxAtLeast(key[0]);
            int last = pages.lastWithMinAtMost(key[0]);
            if (first > last) {
                return; // between pages or outside: no page can hold the key, nothing to read
            }
            if (first == last) {
                share = KeyStop.expectedShare(key[0], pages.min(first), pages.max(first));
            }
            PageLocations locations = rg.columns()[keyLeaf].pages();
            from = locations.firstRows()[pages.entry(first)];
            to = locations.endRow(pages.entry(last), rg.rowCount());
            for (int k = 1; k < key.length && from < to; k++) {
                long[] narrowed = narrow(rg, k, key[k], from, to);
                from = narrowed[0];
                to = narrowed[1];
            }
            if (from >= to) {
                return;
            }
        } else {
            from = 0;
            to = rg.rowCount();
        }
        if (key.length == 1) {
            SortedFile.RowSpan rows = leadingKeyRows(rg, key[0], from, to, share, ctx);
            if (rows != null) {
                out.add(rows);
            }
        } else {
            searchCompositeKey(rg, key, from, to, share, out, ctx);
        }
    }

    /**
     * Narrows candidate rows by a later key column's page bounds: pages of that column that overlap
     * {@code [from, to)} and whose bounds exclude the key cannot hold a match at their ends.
     */
    private long[] narrow(RowGroupInfo rg, int k, Object key, long from, long to) {
        KeyRanges pages = rg.keyPages()[k];
        int leaf = meta.keyLeaves()[k];
        PageLocations locations = rg.columns()[leaf].pages();
        if (pages == null || locations == null) {
            return new long[] {from, to};
        }
        // Trim leading and trailing pages whose bounds exclude the key (null pages never match).
        int firstPage = locations.pageOfRow(from);
        int lastPage = locations.pageOfRow(to - 1);
        long newFrom = from;
        long newTo = to;
        int entry = 0;
        while (entry < pages.size() && pages.entry(entry) < firstPage) {
            entry++;
        }
        for (int p = firstPage; p <= lastPage; p++) {
            boolean hasBounds = entry < pages.size() && pages.entry(entry) == p;
            boolean mayHold = hasBounds && pages.contains(entry, key);
            if (hasBounds) {
                entry++;
            }
            if (mayHold) {
                break;
            }
            newFrom = Math.max(newFrom, locations.endRow(p, rg.rowCount()));
        }
        int lastEntry = pages.size() - 1;
        while (lastEntry >= 0 && pages.entry(lastEntry) > lastPage) {
            lastEntry--;
        }
        for (int p = lastPage; p >= firstPage; p--) {
            boolean hasBounds = lastEntry >= 0 && pages.entry(lastEntry) == p;
            boolean mayHold = hasBounds && pages.contains(lastEntry, key);
            if (hasBounds) {
                lastEntry--;
            }
            if (mayHold) {
                break;
            }
            newTo = Math.min(newTo, locations.firstRows()[p]);
        }
        return new long[] {newFrom, Math.max(newFrom, newTo)};
    }

    /** Decodes one key page of key column {@code keyIndex}, naming the page on failure. */
    private KeyPage keyPage(
            RowGroupInfo rg, int leaf, int keyIndex, LoadedPage page, LookupContext ctx) {
        try {
            return loader.keyPage(page, leaf, keyIndex, rg, ctx);
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, leaf, page.pageNumber, e);
        }
    }

    /**
     * The rows of {@code [from, to)} whose leading key equals {@code key}, found by binary search
     * in the leading key's pages: {@code [from, to)} of the span (the single-key result as it is,
     * no array per lookup), or {@code null} when none. They are contiguous because the leading key
     * is sorted (checked while decoding).
     */
    @Nullable
    private SortedFile.RowSpan leadingKeyRows(
            RowGroupInfo rg, Object key, long from, long to, double share, LookupContext ctx)
            throws IOException {
        int leaf = meta.keyLeaves()[0];
        long matchFrom = -1;
        long matchTo = -1;
        boolean pending = false;
        // Pages verified sorted before are decoded only as far as the key (see KeyStop).
        KeyStop stop = KeyStop.of(leaves[leaf], meta.keyTypes().get(0), key, share);
        for (LoadedPage page : loader.loadPages(rg, leaf, from, to, stop, ctx)) {
            KeyPage keys;
            try {
                keys = keyPage(rg, leaf, 0, page, ctx);
            } catch (PagesPending p) {
                pending = true; // a dictionary to come: ask for the other pages' too
                continue;
            }
            int lo = keys.lowerBound(key);
            int hi = keys.upperBound(key);
            if (lo < hi) {
                if (matchFrom < 0) {
                    matchFrom = page.firstRow + keys.row(lo);
                }
                matchTo = page.firstRow + keys.row(hi - 1) + 1;
            }
        }
        if (pending) {
            throw PagesPending.INSTANCE;
        }
        if (matchFrom < 0) {
            return null;
        }
        // The pages read extend beyond [from, to) (narrowed by later key columns): keep only the
        // rows inside it, which may be none.
        long first = Math.max(from, matchFrom);
        long end = Math.min(to, matchTo);
        return first < end ? new SortedFile.RowSpan(rg.ordinal(), first, end) : null;
    }

    /**
     * Composite keys: the leading key's rows by binary search, then the later key columns are
     * compared row by row only there (they are sorted only within runs of equal leading keys).
     */
    private void searchCompositeKey(
            RowGroupInfo rg,
            Object[] key,
            long from,
            long to,
            double share,
            List<SortedFile.RowSpan> out,
            LookupContext ctx)
            throws IOException {
        SortedFile.RowSpan lead = leadingKeyRows(rg, key[0], from, to, share, ctx);
        if (lead == null) {
            return;
        }
        from = lead.from();
        to = lead.to();
        int n = key.length;
        int rows = (int) (to - from);
        Object[][] columns = new Object[n][];
        boolean pending = false;
        for (int k = 1; k < n; k++) {
            int leaf = meta.keyLeaves()[k];
            Object[] values = new Object[rows];
            List<LoadedPage> pages;
            try {
                pages = loader.loadPages(rg, leaf, from, to, ctx);
            } catch (PagesPending p) {
                pending = true;
                continue;
            }
            for (LoadedPage page : pages) {
                KeyPage keys;
                try {
                    keys = keyPage(rg, leaf, k, page, ctx);
                } catch (PagesPending p) {
                    pending = true;
                    continue;
                }
                for (int i = 0; i < keys.size(); i++) {
                    long row = page.firstRow + keys.row(i);
                    if (row >= from && row < to) {
                        values[(int) (row - from)] = keys.key(i);
                    }
                }
            }
            columns[k] = values;
        }
        if (pending) {
            throw PagesPending.INSTANCE;
        }
        long runStart = -1;
        for (int r = 0; r < rows; r++) {
            boolean match = true;
            for (int k = 1; k < n && match; k++) {
                Object v = columns[k][r];
                match = v != null && meta.keyTypes().get(k).compare(v, key[k]) == 0;
            }
            if (match && runStart < 0) {
                runStart = from + r;
            } else if (!match && runStart >= 0) {
                out.add(new SortedFile.RowSpan(rg.ordinal(), runStart, from + r));
                runStart = -1;
            }
        }
        if (runStart >= 0) {
            out.add(new SortedFile.RowSpan(rg.ordinal(), runStart, to));
        }
    }
}
