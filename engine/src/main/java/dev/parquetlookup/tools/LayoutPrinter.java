package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.TableSchema;
import dev.parquetlookup.tools.FileLayout.SortVerdict;
import dev.parquetlookup.tools.LayoutReport.ColumnStats;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints {@code inspect}'s report: files, schema, sort key and order, columns, cost, advice. */
final class LayoutPrinter {

    private final PrintWriter out;

    LayoutPrinter(PrintWriter out) {
        this.out = out;
    }

    void print(
            LayoutReport report,
            List<String> givenKey,
            List<String> projected,
            LookupCost cost,
            List<String> recommendations) {
        files(report);
        schema(report);
        sortKey(report, givenKey);
        columns(report);
        cost(report, projected, cost);
        out.println();
        if (recommendations.isEmpty()) {
            out.println("Recommendations: none, the layout suits point lookups.");
        } else {
            out.println("Recommendations:");
            for (String r : recommendations) {
                out.println("  - " + r);
            }
        }
        out.flush();
    }

    private void files(LayoutReport report) {
        out.printf(
                Locale.ROOT,
                "%s: %d file(s), %s rows, %s row group(s), %s%n",
                report.path,
                report.files.size(),
                Formats.count(report.rows),
                Formats.count(report.rowGroups),
                Formats.bytes(report.bytes));
        for (FileLayout f : report.files) {
            out.printf(
                    Locale.ROOT,
                    "  %s: %s rows, %d row group(s)%s, %s, written by %s%n",
                    report.label(f),
                    Formats.count(f.rows()),
                    f.rowGroups().size(),
                    f.rowGroups().isEmpty()
                            ? ""
                            : " of up to " + Formats.count(f.maxRowGroupRows()) + " rows",
                    Formats.bytes(f.file().length()),
                    f.createdBy());
        }
        List<String> partitions = report.partitionDirectoryKeys();
        if (!partitions.isEmpty()) {
            out.printf(
                    "  The files sit in Hive-style key=value directories (%s): plain files are"
                            + " read for the columns inside them only, so %s %s no column here."
                            + " Write the values into the files, or serve a Delta or Iceberg table,"
                            + " whose partition values are columns.%n",
                    String.join(", ", partitions),
                    String.join(", ", partitions),
                    partitions.size() == 1 ? "is" : "are");
        }
    }

    private void schema(LayoutReport report) {
        if (report.schemaDifferences.isEmpty()) {
            return;
        }
        out.println();
        out.println("Schema: the files disagree, so they cannot serve as one table:");
        for (TableSchema.Difference d : report.schemaDifferences) {
            out.println("  - " + d.description());
        }
    }

    private void sortKey(LayoutReport report, List<String> givenKey) {
        out.println();
        if (!report.sortKeysAgree()) {
            out.println("Sort key: the files declare different sort keys:");
            for (FileLayout f : report.files) {
                out.printf(
                        "  %s: %s%n",
                        report.label(f),
                        f.sortKey().isEmpty()
                                ? "none"
                                : "(" + String.join(", ", f.sortKey()) + ")");
            }
        } else if (report.sortKey.isEmpty()) {
            out.println(
                    "Sort key: not declared (no sorting_columns and no parquet-lookup.sort-key"
                            + " entry); name it with --key to check the order");
        } else if (!givenKey.isEmpty()) {
            List<String> declared = report.files.get(0).declaredSortKey();
            out.printf(
                    "Sort key: (%s), given with --key%s%n",
                    String.join(", ", report.sortKey),
                    declared.isEmpty()
                            ? ""
                            : "; the files declare (" + String.join(", ", declared) + ")");
        } else {
            out.printf("Sort key: (%s), declared%n", String.join(", ", report.sortKey));
        }
        if (report.sorted()) {
            boolean rows =
                    report.withStatus(SortVerdict.Status.SORTED).stream()
                            .allMatch(f -> f.verdict().rowsChecked());
            out.printf(
                    "Sort order: verified by the engine from statistics: the minimums of row groups"
                            + " and pages of '%s' do not decrease%s%n",
                    report.sortKey.get(0),
                    rows
                            ? "; and every row's value of it, read in file order, does not decrease"
                            : "");
        }
        List<FileLayout> unsorted = report.withStatus(SortVerdict.Status.NOT_SORTED);
        for (FileLayout f : unsorted) {
            out.printf("Sort order: NOT sorted: %s%n", Main.inFlagTerms(f.verdict().detail()));
        }
        if (!unsorted.isEmpty()) {
            long bytes = 0;
            for (FileLayout f : unsorted) {
                // KeyIndex's layout: an 8-byte code and a 4-byte row position (8 past 2^32 rows).
                bytes += f.rows() * (f.rows() <= 0xFFFF_FFFFL ? 12 : 16);
            }
            long atOpen = unsorted.stream().filter(f -> f.verdict().foundAtOpen()).count();
            long atLookup = unsorted.size() - atOpen;
            // When a table builds them (KeyIndexes, SortedFile): the files it finds unsorted at
            // open start their builds in the background then; the others are found, and indexed,
            // by a lookup.
            List<String> when = new ArrayList<>();
            if (atOpen > 0) {
                when.add(
                        "in the background from the table's open for the "
                                + atOpen
                                + " file(s) whose row groups are out of order (a lookup into a"
                                + " file whose index is not built yet waits only for that file's,"
                                + " and starts its build at once if no builder thread has)");
            }
            if (atLookup > 0) {
                when.add(
                        "at the first lookup into an out-of-order row group or page for the "
                                + atLookup
                                + " file(s) whose row groups are in order (the engine finds the"
                                + " disorder there; that lookup waits for the index)");
            }
            out.printf(
                    "Key index: %d of %d file(s) not sorted by '%s' (above: why) are served"
                            + " through a key index per file ('unsorted-files' = 'index', the"
                            + " default; 'refuse' refuses them), built once per file version %s:"
                            + " about %s on local disk, 12 bytes per row; sorted files are read"
                            + " as they are%n",
                    unsorted.size(),
                    report.files.size(),
                    unsorted.get(0).sortKey().get(0),
                    String.join("; ", when),
                    Formats.bytes(bytes));
        }
        int overlaps = report.overlappingFilePairs();
        if (overlaps > 0) {
            out.printf(
                    "  %d pair(s) of files overlap in key range: a lookup there reads several files"
                            + " and returns the rows of all of them%n",
                    overlaps);
        }
    }

    private void columns(LayoutReport report) {
        out.println();
        out.println("Columns (over all files):");
        List<String[]> table = new ArrayList<>();
        table.add(
                new String[] {
                    "column",
                    "type",
                    "codec",
                    "dictionary",
                    "page index",
                    "pages",
                    "rows/page avg",
                    "max",
                    "bytes/page avg",
                    "max"
                });
        for (ColumnStats c : report.columns.values()) {
            String dictionary =
                    c.chunksWithDictionary == 0
                            ? "no"
                            : (c.chunksWithDictionary == c.chunks
                                            ? "yes"
                                            : c.chunksWithDictionary + "/" + c.chunks + " chunks")
                                    + " ("
                                    + Formats.bytes(c.averageDictionaryBytes())
                                    + ")";
            boolean pages = c.pages > 0;
            table.add(
                    new String[] {
                        c.name,
                        String.join(" | ", c.types),
                        String.join(",", c.codecs),
                        dictionary,
                        c.indexed()
                                ? "yes"
                                : c.chunksWithOffsetIndex == 0
                                        ? "no"
                                        : c.chunksWithOffsetIndex + "/" + c.chunks,
                        pages ? Formats.count(c.pages) : "?",
                        pages ? Formats.count(Math.round((double) c.pageRowsTotal / c.pages)) : "?",
                        pages ? Formats.count(c.pageRowsMax) : "?",
                        pages ? Formats.bytes((double) c.pageBytesTotal / c.pages) : "?",
                        pages ? Formats.bytes(c.pageBytesMax) : "?"
                    });
        }
        printTable(table);
        out.println(
                "Page index: "
                        + (report.allPageIndexed()
                                ? "present (OffsetIndex) in every column chunk"
                                : report.noPageIndex()
                                        ? "absent"
                                        : "present in some column chunks only"));
    }

    private void cost(LayoutReport report, List<String> projected, LookupCost cost) {
        out.println();
        out.printf(
                Locale.ROOT,
                "One lookup (returning %s; metadata cached): about %s in %d read(s)%n",
                projected.size() == report.columns.size()
                        ? "all columns"
                        : String.join(", ", projected),
                Formats.bytes(cost.bytes()),
                cost.reads());
        out.println("  " + String.join(" + ", cost.parts()));
        if (report.sortKey == null || report.sortKey.isEmpty()) {
            out.println("  (without a sort key the key page cannot be located: a guess)");
        }
        out.printf(
                Locale.ROOT,
                "  Metadata read once per file and cached: %s in total (footers and page"
                        + " indexes)%n",
                Formats.bytes(report.metadataBytes));
    }

    private void printTable(List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder(" ");
            for (int i = 0; i < row.length; i++) {
                sb.append(' ').append(row[i]);
                sb.append(" ".repeat(widths[i] - row[i].length()));
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
