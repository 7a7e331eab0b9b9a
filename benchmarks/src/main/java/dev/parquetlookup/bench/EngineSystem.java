package dev.parquetlookup.bench;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.metadata.MetadataCache;

import java.nio.file.Path;
import java.util.List;

/**
 * This project's engine: a {@link DimensionTable} on the seed file, sort key {@code k}, projecting
 * {@code v}, with its own metadata cache (warmed by the open) and the page cache off or on.
 */
final class EngineSystem extends TableSystem {

    static final long METADATA_CACHE_BYTES = 256L << 20;
    static final long PAGE_CACHE_BYTES = 256L << 20;

    private final String name;
    private final boolean pageCache;
    private final LookupPlan plan;

    EngineSystem(Path file, boolean pageCache) throws Exception {
        this(file, pageCache, new MetadataCache(METADATA_CACHE_BYTES));
    }

    /** The engine on a table configured by the caller (no page cache unless it sets one). */
    EngineSystem(TableConfig config, boolean pageCache) throws Exception {
        super(DimensionTable.open(config));
        this.name = pageCache ? "parquet-lookup-pagecache" : "parquet-lookup";
        this.pageCache = pageCache;
        this.plan = table.plan(List.of("k"), List.of("v"));
    }

    EngineSystem(Path file, boolean pageCache, MetadataCache metadataCache) throws Exception {
        super(
                DimensionTable.open(
                        seedTable(file, metadataCache)
                                .pageCache(pageCache ? new PageCache(PAGE_CACHE_BYTES) : null)
                                .build()));
        this.name = pageCache ? "parquet-lookup-pagecache" : "parquet-lookup";
        this.pageCache = pageCache;
        this.plan = table.plan(List.of("k"), List.of("v"));
    }

    /**
     * The seed file's table settings: its path, sort key {@code k} and the given metadata cache. A
     * case adds what it varies (a page cache, an index directory).
     */
    static TableConfig.Builder seedTable(Path file, MetadataCache metadataCache) {
        return TableConfig.builder(file.toAbsolutePath().toString())
                .sortKey(List.of("k"))
                .metadataCache(metadataCache);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String config() {
        return "DimensionTable on a plain local path (RawLocalFileSystem), sort key k, projection"
                + " v, metadata cache "
                + (METADATA_CACHE_BYTES >> 20)
                + " MiB (warmed by open), page cache "
                + (pageCache ? (PAGE_CACHE_BYTES >> 20) + " MiB" : "off")
                + ", one shared table for all threads";
    }

    @Override
    public Session session() {
        return k -> value(table.lookup(plan, new Object[] {k}));
    }
}
