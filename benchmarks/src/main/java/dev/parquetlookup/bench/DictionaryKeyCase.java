package dev.parquetlookup.bench;

import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code reader} suite's dictionary case: the seed data in the protocol's lookup layout with
 * dictionary encoding on (what parquet-java, Spark and pyarrow write by default), read by this
 * engine with and without the page cache, against the same layout without dictionary and its floor,
 * in one run on the same keys. The RATIO lines say what a dictionary-encoded key page costs over a
 * PLAIN one. A NOTE says how many of the key column's pages are dictionary-encoded (parquet-java
 * falls back to PLAIN once a chunk's dictionary passes 1 MiB). Runs alone as suite {@code
 * reader-dict}.
 */
final class DictionaryKeyCase {

    static final String CASE = "dictionary";

    private static final String DICT = "parquet-lookup-dict";
    private static final String DICT_CACHED = "parquet-lookup-dict-pagecache";
    private static final String PLAIN = "parquet-lookup-plain";
    private static final String PLAIN_CACHED = "parquet-lookup-plain-pagecache";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    DictionaryKeyCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        SeedLayout plainLayout = SeedLayout.lookupDefault(options.rows());
        SeedLayout dictLayout = plainLayout.withDictionary(true);
        Path plain = SeedDataset.get(report.out(), plainLayout, log);
        Path dict = DictionaryKeyFile.get(report.out(), dictLayout, log);
        report.note(
                "case="
                        + CASE
                        + " file="
                        + dict.getFileName()
                        + " key pages dictionary-encoded: "
                        + dictionaryPages(dict));
        List<LookupSystem> systems = new ArrayList<>();
        try {
            systems.add(new LookupSystem.Renamed(new EngineSystem(dict, false), DICT));
            systems.add(new LookupSystem.Renamed(new EngineSystem(dict, true), DICT_CACHED));
            systems.add(new LookupSystem.Renamed(new EngineSystem(plain, false), PLAIN));
            systems.add(new LookupSystem.Renamed(new EngineSystem(plain, true), PLAIN_CACHED));
            systems.add(new FloorSystem(plain, plainLayout));
            for (LookupSystem s : systems) {
                report.note(
                        "case=" + CASE + " system=" + s.name() + " config=\"" + s.config() + "\"");
            }
            for (KeyMix mix : List.of(KeyMix.UNIFORM, KeyMix.ZIPF)) {
                String name = CASE + "-" + mix.label();
                CaseRunner.measureOneThread(ReaderSuite.SUITE, name, mix, systems, options, report);
                report.ratio(ReaderSuite.SUITE, name, 1, DICT, List.of(PLAIN, "floor"));
                report.ratio(
                        ReaderSuite.SUITE, name, 1, DICT_CACHED, List.of(PLAIN_CACHED, "floor"));
            }
        } finally {
            for (LookupSystem system : systems) {
                system.close();
            }
        }
    }

    /** "N of M" data pages of column k, from the footer's encoding statistics. */
    private static String dictionaryPages(Path file) throws IOException {
        long dictionary = 0;
        long all = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            for (BlockMetaData block : reader.getRowGroups()) {
                for (ColumnChunkMetaData c : block.getColumns()) {
                    EncodingStats stats = c.getEncodingStats();
                    if (!c.getPath().toDotString().equals("k") || stats == null) {
                        continue;
                    }
                    for (Encoding e : stats.getDataEncodings()) {
                        int pages = stats.getNumDataPagesEncodedAs(e);
                        all += pages;
                        if (e.usesDictionary()) {
                            dictionary += pages;
                        }
                    }
                }
            }
        }
        return dictionary + " of " + all;
    }
}
