package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.table.TableWarmup.Mode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.disk.TieredFileStore;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import java.util.ArrayList;
import java.util.List;

/**
 * Owns what a {@link TableWarmup} fetches, from the footers alone (a lazily read page index is not
 * read for the plan): each remote file's tail (page indexes and footer), then the sort-key columns
 * of every row group, then (mode {@link Mode#ALL}) the other columns, as pieces of at most {@code
 * maxPiece} bytes, one GET each; and which of them fit the tier's budget.
 *
 * <p>Example: {@code WarmupPlan.withinBudget(WarmupPlan.plan(files, Mode.ALL, 8 << 20), budget)}.
 */
final class WarmupPlan {

    /** One range of one file, fetched by one request. */
    record Piece(FileId file, FileRange range) {}

    private WarmupPlan() {}

    /** Tails first, then key columns, then (ALL) the others; remote files only. */
    static List<Piece> plan(List<FileMetadata> files, Mode mode, long maxPiece) {
        List<Piece> tails = new ArrayList<>();
        List<Piece> keys = new ArrayList<>();
        List<Piece> others = new ArrayList<>();
        for (FileMetadata meta : files) {
            FileId file = meta.file();
            if (TieredFileStore.isLocal(file.path())) {
                continue;
            }
            long dataEnd = 0;
            boolean[] isKey = new boolean[meta.schema().getColumns().size()];
            for (int leaf : meta.keyLeaves()) {
                isKey[leaf] = true;
            }
            RowGroupIndexes lazy = meta.rowGroupIndexes();
            for (int r = 0; r < meta.rowGroups().size(); r++) {
                // A lazily read page index is not read for the plan (that would cost a request per
                // row group before the first lookup): without it, chunks are cut at maxPiece.
                RowGroupInfo cached = lazy == null ? null : lazy.cached(r);
                RowGroupInfo rg =
                        lazy == null
                                ? meta.rowGroups().get(r)
                                : cached != null ? cached : meta.footerRowGroup(r);
                boolean cut = lazy != null;
                ColumnChunkInfo[] columns = rg.columns();
                for (int c = 0; c < columns.length; c++) {
                    ColumnChunkInfo chunk = columns[c];
                    dataEnd = Math.max(dataEnd, chunk.startOffset() + chunk.totalCompressedSize());
                    if (isKey[c]) {
                        addChunk(keys, file, chunk, maxPiece, cut);
                    } else if (mode == Mode.ALL) {
                        addChunk(others, file, chunk, maxPiece, cut);
                    }
                }
            }
            long tail = file.length() - dataEnd;
            if (dataEnd > 0 && tail > 0 && tail <= maxPiece) {
                tails.add(new Piece(file, new FileRange(dataEnd, (int) tail)));
            }
        }
        List<Piece> all = new ArrayList<>(tails.size() + keys.size() + others.size());
        all.addAll(tails);
        all.addAll(keys);
        all.addAll(others);
        return all;
    }

    /**
     * Runs of whole pages of at most {@code maxPiece} bytes (the first one from the chunk's start,
     * so with its dictionary page); the whole chunk when it has no page index.
     */
    static void addChunk(List<Piece> out, FileId file, ColumnChunkInfo chunk, long maxPiece) {
        addChunk(out, file, chunk, maxPiece, false);
    }

    /**
     * Like {@link #addChunk(List, FileId, ColumnChunkInfo, long)}; with {@code cut}, a chunk whose
     * page locations are not at hand (a lazily read page index) is cut into pieces of {@code
     * maxPiece} bytes (a page across a cut is read remotely).
     */
    static void addChunk(
            List<Piece> out, FileId file, ColumnChunkInfo chunk, long maxPiece, boolean cut) {
        long start = chunk.startOffset();
        long end = start + chunk.totalCompressedSize();
        PageLocations pages = chunk.pages();
        if (pages == null || pages.pageCount() == 0) {
            if (cut) {
                for (long from = start; from < end; from += maxPiece) {
                    addPiece(out, file, from, Math.min(end, from + maxPiece), maxPiece);
                }
            } else {
                addPiece(out, file, start, end, maxPiece);
            }
            return;
        }
        long pieceStart = start;
        long pieceEnd = start;
        for (int i = 0; i < pages.pageCount(); i++) {
            long pageStart = pages.offsets()[i];
            long pageEnd = pageStart + pages.sizes()[i];
            if (pageEnd - pieceStart > maxPiece && pieceEnd > pieceStart) {
                addPiece(out, file, pieceStart, pieceEnd, maxPiece);
                pieceStart = pageStart;
            }
            pieceEnd = Math.max(pieceEnd, pageEnd);
        }
        addPiece(out, file, pieceStart, Math.max(pieceEnd, end), maxPiece);
    }

    private static void addPiece(List<Piece> out, FileId file, long start, long end, long max) {
        if (end > start && end - start <= max && end <= file.length()) {
            out.add(new Piece(file, new FileRange(start, (int) (end - start))));
        }
    }

    /** The pieces, in order, while their sum stays within {@code budget} (later ones may fit). */
    static List<Piece> withinBudget(List<Piece> planned, long budget) {
        List<Piece> pieces = new ArrayList<>();
        long bytes = 0;
        for (Piece p : planned) {
            if (bytes + p.range().length() <= budget) {
                pieces.add(p);
                bytes += p.range().length();
            }
        }
        return pieces;
    }

    static long bytes(List<Piece> pieces) {
        long bytes = 0;
        for (Piece p : pieces) {
            bytes += p.range().length();
        }
        return bytes;
    }
}
