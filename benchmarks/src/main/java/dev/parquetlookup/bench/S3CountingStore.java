package dev.parquetlookup.bench;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;

import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.apache.hadoop.fs.statistics.StoreStatisticNames;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The S3 store, keeping the sources it opens to read their S3A stream statistics (live while open),
 * and the requests the listing made.
 */
final class S3CountingStore extends ForwardingFileStore {
    private final HadoopFileStore delegate;
    private final List<RangeSource> sources = new CopyOnWriteArrayList<>();
    long headsByListing;
    long listsByListing;

    S3CountingStore(HadoopFileStore delegate) {
        super(delegate);
        this.delegate = delegate;
    }

    @Override
    public List<FileId> list(String path) throws IOException {
        List<FileId> files = super.list(path);
        headsByListing = heads();
        listsByListing = counter(delegate, StoreStatisticNames.OBJECT_LIST_REQUEST);
        return files;
    }

    @Override
    public RangeSource open(FileId file) throws IOException {
        RangeSource source = super.open(file);
        sources.add(source);
        return source;
    }

    /** GETs of the open streams (a closed stream's move to its file system's statistics). */
    long gets() {
        long n = counter(delegate, StoreStatisticNames.ACTION_HTTP_GET_REQUEST);
        for (RangeSource s : sources) {
            n += counter(s, StoreStatisticNames.ACTION_HTTP_GET_REQUEST);
        }
        return n;
    }

    long heads() {
        return counter(delegate, StoreStatisticNames.ACTION_HTTP_HEAD_REQUEST);
    }

    long discardedBytes() {
        long n = 0;
        for (RangeSource s : sources) {
            n += counter(s, StreamStatisticNames.STREAM_READ_VECTORED_READ_BYTES_DISCARDED);
        }
        return n;
    }

    private static long counter(Object source, String name) {
        IOStatistics statistics = IOStatisticsSupport.retrieveIOStatistics(source);
        if (statistics == null) {
            return 0;
        }
        Long value = statistics.counters().get(name);
        return value == null ? 0 : value;
    }
}
