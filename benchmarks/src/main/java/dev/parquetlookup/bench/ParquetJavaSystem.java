package dev.parquetlookup.bench;

import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.Operators;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

import java.nio.file.Path;
import java.util.Map;

/**
 * parquet-java as a careful user would write a point read: {@code FilterApi.eq(k, key)} as the
 * record filter with statistics, column-index (page index) and record-level filtering on,
 * dictionary and bloom-filter filtering off (the file has neither), the footer read once and handed
 * to {@code ParquetFileReader.open(InputFile, footer, options, stream)} for every lookup, then
 * {@code readNextFilteredRowGroup()} and the record reader with the filter: the same pipeline
 * {@code ParquetReader} runs inside, minus its per-lookup footer read.
 */
final class ParquetJavaSystem implements LookupSystem {

    private static final Operators.LongColumn K = FilterApi.longColumn("k");

    private final HadoopFileStore store;
    private final RangeSource source;
    private final ReadStatistics statistics = new ReadStatistics();
    private final RangeSourceInputFile file;
    private final ParquetMetadata footer;
    private final MessageType schema;

    ParquetJavaSystem(Path path) throws Exception {
        this.store = HadoopFileStore.create(Map.of());
        FileId id = store.stat(path.toAbsolutePath().toString());
        this.source = new CountingRangeSource(store.open(id), statistics);
        this.file = new RangeSourceInputFile(source, 8 * 1024);
        try (ParquetFileReader reader = ParquetFileReader.open(file)) {
            this.footer = reader.getFooter();
        }
        this.schema = footer.getFileMetaData().getSchema();
    }

    @Override
    public String name() {
        return "parquet-java";
    }

    @Override
    public String config() {
        return "parquet-java 1.18.1 ParquetFileReader.open(InputFile, cached footer, options,"
                + " stream) per lookup, InputFile = positioned reads on Hadoop's RawLocalFileSystem"
                + " (the engine's I/O) with an 8 KiB read-ahead for thrift's small reads; one"
                + " ParquetConfiguration and CodecFactory per thread; filter FilterApi.eq(k); stats+column-index+record filtering"
                + " on, dictionary/bloom filtering off; readNextFilteredRowGroup + record reader"
                + " (example Group); page indexes are read per lookup (parquet-java has no way to"
                + " reuse them)";
    }

    @Override
    public Session session() {
        MessageColumnIO columnIO =
                new ColumnIOFactory(footer.getFileMetaData().getCreatedBy()).getColumnIO(schema);
        // One configuration and codec factory per thread: ParquetReadOptions.builder() would
        // otherwise build a Hadoop Configuration (and parse its XML) and a codec factory per
        // lookup.
        PlainParquetConfiguration conf = new PlainParquetConfiguration();
        CodecFactory codecs = new CodecFactory(conf, 0);
        return k -> {
            FilterCompat.Filter filter = FilterCompat.get(FilterApi.eq(K, k));
            ParquetReadOptions options =
                    ParquetReadOptions.builder(conf)
                            .withCodecFactory(codecs)
                            .withRecordFilter(filter)
                            .useStatsFilter(true)
                            .useColumnIndexFilter(true)
                            .useRecordFilter(true)
                            .useDictionaryFilter(false)
                            .useBloomFilter(false)
                            .build();
            String found = null;
            try (ParquetFileReader reader =
                    ParquetFileReader.open(file, footer, options, file.newStream())) {
                PageReadStore pages;
                while ((pages = reader.readNextFilteredRowGroup()) != null) {
                    RecordReader<Group> records =
                            columnIO.getRecordReader(
                                    pages, new GroupRecordConverter(schema), filter);
                    long rows = pages.getRowCount();
                    for (long i = 0; i < rows; i++) {
                        Group g = records.read();
                        if (g != null && !records.shouldSkipCurrentRecord()) {
                            found = g.getString("v", 0);
                        }
                    }
                }
            }
            return found;
        };
    }

    @Override
    public long bytesRead() {
        return statistics.bytesRead();
    }

    @Override
    public long readRequests() {
        return statistics.readRequests();
    }

    @Override
    public void close() throws Exception {
        source.close();
        store.close();
    }
}
