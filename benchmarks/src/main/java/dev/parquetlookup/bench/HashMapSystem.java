package dev.parquetlookup.bench;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The whole table in a {@code HashMap<Long, String>}: the memory and load-time reference. Loaded by
 * parquet-java's column readers (the fastest plain parquet-java path, no record assembly); the load
 * time and the heap the map retains are reported.
 */
final class HashMapSystem implements LookupSystem {

    private final Map<Long, String> map;
    private final long loadNanos;
    private final long retainedBytes;
    private final long loadBytes;
    private final long loadReads;

    HashMapSystem(Path path, long rows) throws Exception {
        long heapBefore = Heap.usedAfterGc();
        long start = System.nanoTime();
        Map<Long, String> m = new HashMap<>((int) Math.min(Integer.MAX_VALUE, rows * 4 / 3 + 16));
        CountingInputFile input = new CountingInputFile(new LocalInputFile(path));
        try (ParquetFileReader reader = ParquetFileReader.open(input)) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            ColumnDescriptor kCol = schema.getColumnDescription(new String[] {"k"});
            ColumnDescriptor vCol = schema.getColumnDescription(new String[] {"v"});
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null) {
                ColumnReadStoreImpl store =
                        new ColumnReadStoreImpl(
                                pages,
                                new GroupRecordConverter(schema).getRootConverter(),
                                schema,
                                createdBy);
                ColumnReader ks = store.getColumnReader(kCol);
                ColumnReader vs = store.getColumnReader(vCol);
                long n = pages.getRowCount();
                for (long i = 0; i < n; i++) {
                    long k = ks.getLong();
                    ks.consume();
                    String v = vs.getBinary().toStringUsingUTF8();
                    vs.consume();
                    m.put(k, v);
                }
            }
        }
        this.loadNanos = System.nanoTime() - start;
        this.loadBytes = input.bytes.sum();
        this.loadReads = input.reads.sum();
        this.map = m;
        this.retainedBytes = Math.max(0, Heap.usedAfterGc() - heapBefore);
    }

    /** Estimated heap for {@code rows} entries (about 130 bytes each), to skip a load that OOMs. */
    static long estimatedBytes(long rows) {
        return rows * 140;
    }

    long loadNanos() {
        return loadNanos;
    }

    @Override
    public String name() {
        return "hashmap";
    }

    @Override
    public String config() {
        return "java.util.HashMap<Long,String> of the whole table, loaded with parquet-java column"
                + " readers; lookups are map.get";
    }

    @Override
    public Session session() {
        return map::get;
    }

    /** Lookups read nothing; the load read the file once (counted here for the cold start). */
    @Override
    public long bytesRead() {
        return loadBytes;
    }

    @Override
    public long readRequests() {
        return loadReads;
    }

    @Override
    public long retainedHeapBytes() {
        return retainedBytes;
    }
}
