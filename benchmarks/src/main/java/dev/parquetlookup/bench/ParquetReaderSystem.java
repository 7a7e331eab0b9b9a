package dev.parquetlookup.bench;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.Operators;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.nio.file.Path;

/**
 * parquet-java's high-level {@code ParquetReader} as most users write a point read: a reader built
 * per lookup with {@code withFilter(FilterApi.eq(k, key))} and column-index filtering on. It reads
 * the footer on every lookup (the API takes no cached footer). Best settings it allows: one Hadoop
 * {@code Configuration} per thread, the raw (checksum-free) local file system, dictionary and
 * bloom-filter filtering off.
 */
final class ParquetReaderSystem implements LookupSystem {

    private static final Operators.LongColumn K = FilterApi.longColumn("k");

    private final org.apache.hadoop.fs.Path path;

    ParquetReaderSystem(Path file) {
        this.path = new org.apache.hadoop.fs.Path(file.toAbsolutePath().toUri());
    }

    @Override
    public String name() {
        return "parquet-java-reader";
    }

    @Override
    public String config() {
        return "parquet-java 1.18.1 ParquetReader.builder(GroupReadSupport, path)"
                + ".withFilter(FilterApi.eq(k)) built per lookup (footer read per lookup),"
                + " column-index+stats+record filtering on, dictionary/bloom filtering off, one"
                + " Configuration per thread, RawLocalFileSystem";
    }

    @Override
    public Session session() {
        Configuration conf = new Configuration();
        conf.setClass("fs.file.impl", RawLocalFileSystem.class, FileSystem.class);
        return k -> {
            String found = null;
            try (ParquetReader<Group> reader =
                    ParquetReader.builder(new GroupReadSupport(), path)
                            .withConf(conf)
                            .withFilter(FilterCompat.get(FilterApi.eq(K, k)))
                            .useColumnIndexFilter(true)
                            .useStatsFilter(true)
                            .useRecordFilter(true)
                            .useDictionaryFilter(false)
                            .useBloomFilter(false)
                            .build()) {
                Group g;
                while ((g = reader.read()) != null) {
                    found = g.getString("v", 0);
                }
            }
            return found;
        };
    }
}
