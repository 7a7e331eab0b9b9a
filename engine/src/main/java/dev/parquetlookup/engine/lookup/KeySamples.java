package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.lookup.TableColumns.KeyValues;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.Widening;

import java.util.ArrayList;
import java.util.List;

/**
 * Owns the sample of the leading sort-key column that {@link DimensionTable#leadingKeySamples()}
 * gives (range boundaries for a key-range shuffle), taken from metadata at hand so that sampling
 * sends no request beyond the footers read at open:
 *
 * <ul>
 *   <li>a row group whose page index is at hand (read at open, already loaded and cached, or of a
 *       local file, where reading it is a copy) gives its pages' minimums;
 *   <li>a row group of a remote file whose page index is read lazily and not loaded yet gives its
 *       footer statistics: its minimum and maximum and, for integer-like keys ({@link
 *       KeyType.Kind#LONG}), values spread evenly between them in proportion to its rows (the
 *       statistics say nothing finer; the pages would cost a request per row group).
 * </ul>
 *
 * <p>Example: a remote file of 4 row groups of 131,072 {@code BIGINT} keys, no index loaded, gives
 * about {@link #INTERPOLATED} / 4 evenly spaced values per row group, and planning costs no GET.
 */
final class KeySamples {

    /** Values interpolated over all row groups sampled from statistics, in proportion to rows. */
    static final int INTERPOLATED = 4096;

    private final KeyType lead;
    private final ValueType leadType;
    private final List<Object> samples = new ArrayList<>();

    private KeySamples(KeyType lead, ValueType leadType) {
        this.lead = lead;
        this.leadType = leadType;
    }

    static List<Object> of(SortedFile[] files, KeyType lead, ValueType leadType) {
        long totalRows = 0;
        for (SortedFile file : files) {
            totalRows += file.metadata().rowCount();
        }
        KeySamples s = new KeySamples(lead, leadType);
        for (SortedFile file : files) {
            s.sample(file, Math.max(1, totalRows));
        }
        return s.samples;
    }

    private void sample(SortedFile file, long totalRows) {
        if (file.columns().leadingIsConstant()) {
            add(file.minKey()); // a partition value: the file's one leading key
            return;
        }
        FileMetadata meta = file.metadata();
        RowGroupIndexes lazy = meta.rowGroupIndexes();
        boolean indexAtHand = lazy == null || file.loader().source().readsInline();
        KeyRanges rowGroups = meta.rowGroupKeys();
        for (int i = 0; i < rowGroups.size(); i++) {
            int r = rowGroups.entry(i);
            RowGroupInfo rg = indexAtHand ? meta.rowGroups().get(r) : lazy.cached(r);
            KeyRanges pages = rg == null ? null : rg.keyPages()[0];
            if (pages != null) {
                for (int p = 0; p < pages.size(); p++) {
                    add(pages.min(p));
                }
            } else if (rg != null || lazy == null) {
                add(rowGroups.min(i)); // no page index: the row group's bound
            } else {
                long rows = meta.footerRowGroup(r).rowCount();
                fromStatistics(rowGroups.min(i), rowGroups.max(i), rows, totalRows);
            }
        }
    }

    /** The minimum, values spread between minimum and maximum (integer-like keys), the maximum. */
    private void fromStatistics(Object min, Object max, long rows, long totalRows) {
        add(min);
        if (lead.kind() == KeyType.Kind.LONG && min instanceof Long lo && max instanceof Long hi) {
            int n = (int) Math.min(rows, Math.max(0, INTERPOLATED * rows / totalRows));
            double step = ((double) hi - (double) lo) / (n + 1);
            long previous = lo;
            for (int j = 1; j <= n; j++) {
                long v = lo + (long) (step * j);
                if (v > previous && v < hi) {
                    add(v);
                    previous = v;
                }
            }
        }
        if (!max.equals(min)) {
            add(max);
        }
    }

    private void add(Object comparable) {
        samples.add(Widening.widen(KeyValues.engineValue(lead, comparable), leadType));
    }
}
