package dev.parquetlookup.io;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FutureDataInputStreamBuilder;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSnapshot;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * {@link FileStore} over any Hadoop {@link FileSystem}: {@code file://} and plain paths, {@code
 * hdfs://}, {@code s3a://} (with {@code hadoop-aws} on the class path), ...
 *
 * <p>Local paths use {@link RawLocalFileSystem}: Hadoop's default checksummed local file system
 * makes positioned reads 4-5x slower and the {@code .crc} files it checks are a Hadoop convention,
 * not Parquet's. Local files are read through a memory mapping ({@link MappedRangeSource}), or with
 * positioned reads when the system refuses one. File systems are created per store ({@link
 * FileSystem#newInstance}) with the store's own configuration, so options given to one table never
 * leak to another, and closed with the store.
 *
 * <p>Object stores: a listed file keeps its listing's {@link FileStatus} in its {@link FileId}, and
 * {@link #open} passes it to {@code openFile().withFileStatus(...)}. S3A then sends no HEAD and
 * makes every GET conditional on the listed ETag ({@code fs.s3a.change.detection.mode=server}, the
 * default, sends {@code If-Match}; {@code client} compares the ETag of each response): an object
 * overwritten in place fails the read with a {@link FileChangedException} instead of serving bytes
 * of the new object with metadata of the old one.
 */
public final class HadoopFileStore implements FileStore, IOStatisticsSource {

    /** Hadoop's option for the file length given to {@code openFile()}: saves a HEAD on S3. */
    private static final String OPENFILE_LENGTH = "fs.option.openfile.length";

    private static final String OPENFILE_READ_POLICY = "fs.option.openfile.read.policy";

    /**
     * Hadoop option (table option {@code hadoop.parquet-lookup.s3.async-reads}): whether
     * asynchronous lookups read {@code s3a://} files through an asynchronous client (default true;
     * which one: {@code parquet-lookup.s3.range-client}, see {@link S3RangeClients}), or through
     * S3A streams on a bounded pool of blocking reads.
     */
    public static final String ASYNC_S3_READS = "parquet-lookup.s3.async-reads";

    private static final Logger LOG = LoggerFactory.getLogger(HadoopFileStore.class);

    private final Configuration conf;
    private final boolean mapLocalFiles;
    private final Map<String, FileSystem> fileSystems = new ConcurrentHashMap<>();

    /** Per remote file system: its asynchronous reader, or empty for blocking reads on the pool. */
    private final Map<FileSystem, Optional<AsyncRangeReader>> asyncReaders =
            new ConcurrentHashMap<>();

    private volatile BlockingReads blockingReads;

    private HadoopFileStore(Configuration conf, boolean mapLocalFiles) {
        this.conf = conf;
        this.mapLocalFiles = mapLocalFiles;
    }

    /**
     * A store whose Hadoop configuration is the default one plus {@code hadoopOptions} (keys
     * without any prefix, e.g. {@code fs.s3a.endpoint}).
     */
    public static HadoopFileStore create(Map<String, String> hadoopOptions) {
        return create(hadoopOptions, true);
    }

    /**
     * Like {@link #create(Map)}; {@code mapLocalFiles} false reads local files with positioned
     * reads instead of a memory mapping (for files that may be rewritten in place, or NFS mounts).
     */
    public static HadoopFileStore create(Map<String, String> hadoopOptions, boolean mapLocalFiles) {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        return new HadoopFileStore(conf, mapLocalFiles);
    }

    @Override
    public List<FileId> list(String path) throws IOException {
        Path root = new Path(path);
        FileSystem fs = fileSystem(root);
        FileStatus status = fs.getFileStatus(root);
        List<FileId> files = new ArrayList<>();
        if (status.isFile()) {
            files.add(toFileId(status));
            return files;
        }
        if (fs instanceof RawLocalFileSystem) {
            listLocal(fs, status.getPath(), files);
        } else {
            RemoteIterator<LocatedFileStatus> it = fs.listFiles(root, true);
            while (it.hasNext()) {
                LocatedFileStatus file = it.next();
                if (file.isFile() && isDataFile(root, file.getPath())) {
                    files.add(toFileId(file));
                }
            }
        }
        files.sort(Comparator.comparing(FileId::path));
        return files;
    }

    /**
     * Local listing by {@code listStatus}, not {@code listFiles}: the latter builds a {@code
     * LocatedFileStatus} per file, which makes the raw local file system fork {@code ls} to read
     * permissions, and fails the whole listing when a file is renamed or deleted meanwhile (a
     * publisher's temporary file). Names starting with '.' or '_' are skipped with everything below
     * them; entries that vanish while listing are skipped too.
     */
    private static void listLocal(FileSystem fs, Path dir, List<FileId> files) throws IOException {
        FileStatus[] children;
        try {
            children = fs.listStatus(dir);
        } catch (FileNotFoundException e) {
            return; // deleted while its parent was being listed
        }
        for (FileStatus child : children) {
            String name = child.getPath().getName();
            if (name.startsWith(".") || name.startsWith("_")) {
                continue;
            }
            if (child.isDirectory()) {
                listLocal(fs, child.getPath(), files);
            } else if (child.isFile()) {
                files.add(toFileId(child));
            }
        }
    }

    @Override
    public FileId stat(String path) throws IOException {
        Path p = new Path(path);
        return toFileId(fileSystem(p).getFileStatus(p));
    }

    @Override
    public RangeSource open(FileId file) throws IOException {
        Path path = new Path(file.path());
        FileSystem fs = fileSystem(path);
        if (fs instanceof RawLocalFileSystem local && mapLocalFiles) {
            RangeSource mapped = MappedRangeSource.tryOpen(file, local.pathToFile(path));
            if (mapped != null) {
                return mapped;
            }
        }
        FSDataInputStream in;
        try {
            FutureDataInputStreamBuilder builder =
                    fs.openFile(path)
                            .opt(OPENFILE_LENGTH, Long.toString(file.length()))
                            .opt(OPENFILE_READ_POLICY, "random");
            if (file.status() != null) {
                builder = builder.withFileStatus(file.status());
            }
            in = builder.build().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening " + file.path());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("cannot open " + file.path(), e.getCause());
        }
        if (fs instanceof RawLocalFileSystem) {
            return new HadoopRangeSource(file, in, true);
        }
        return new HadoopRangeSource(file, in, false, asyncReads(fs));
    }

    /**
     * Asynchronous reads of {@code fs}, resolved on the first asynchronous read and then kept for
     * the file system: opening files for their footers (planning, a refresh's listing) starts no
     * asynchronous client and no pool.
     */
    private HadoopRangeSource.AsyncReads asyncReads(FileSystem fs) {
        return new HadoopRangeSource.AsyncReads() {
            @Nullable private volatile Optional<AsyncRangeReader> resolved;

            @Override
            public AsyncRangeReader reader() {
                Optional<AsyncRangeReader> r = resolved;
                if (r == null) {
                    r = asyncReaders.computeIfAbsent(fs, HadoopFileStore::asyncReader);
                    resolved = r;
                }
                return r.orElse(null);
            }

            @Override
            public Executor blockingReads() {
                return HadoopFileStore.this.blockingReads();
            }
        };
    }

    /**
     * The asynchronous client {@link S3RangeClients} chooses when {@code hadoop-aws} and the SDK
     * are present (the S3 classes are touched only then), else empty.
     */
    private static Optional<AsyncRangeReader> asyncReader(FileSystem fs) {
        if (!fs.getClass().getName().equals("org.apache.hadoop.fs.s3a.S3AFileSystem")
                || !fs.getConf().getBoolean(ASYNC_S3_READS, true)) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(S3RangeClients.forFileSystem(fs));
        } catch (IOException e) {
            LOG.warn(
                    "{}: the client for ranged GETs could not be set up ({}); reads go"
                            + " through S3A streams on a bounded pool",
                    fs.getUri(),
                    e.toString());
            return Optional.empty();
        } catch (LinkageError e) {
            LOG.warn(
                    "{}: the AWS SDK's asynchronous S3 client is not on the class path ({}); reads"
                            + " go through S3A streams on a bounded pool",
                    fs.getUri(),
                    e.toString());
            return Optional.empty();
        }
    }

    private BlockingReads blockingReads() {
        BlockingReads pool = blockingReads;
        if (pool == null) {
            synchronized (this) {
                pool = blockingReads;
                if (pool == null) {
                    pool = new BlockingReads("parquet-lookup-io");
                    blockingReads = pool;
                }
            }
        }
        return pool;
    }

    /**
     * A snapshot of the statistics of this store's file systems, summed (S3A: HEAD, LIST and GET
     * requests; the GETs of a stream are added when it closes, see {@code HadoopRangeSource}). For
     * benchmarks and tests: {@code
     * getIOStatistics().counters().get(StoreStatisticNames.ACTION_HTTP_HEAD_REQUEST)}.
     */
    @Override
    public IOStatistics getIOStatistics() {
        IOStatisticsSnapshot sum = IOStatisticsSupport.snapshotIOStatistics();
        for (FileSystem fs : fileSystems.values()) {
            IOStatistics statistics = IOStatisticsSupport.retrieveIOStatistics(fs);
            if (statistics != null) {
                sum.aggregate(statistics);
            }
        }
        return sum;
    }

    /**
     * Starts creating the asynchronous client of {@code path}'s file system on a daemon thread, so
     * that it overlaps opening the table instead of delaying the first lookup (the SDK's client and
     * its event loops take 0.3-1.2 s to start in a fresh JVM). Does nothing for local paths or when
     * the client exists; failures are left to the first asynchronous read, which meets them again.
     */
    public void prepareAsyncReads(String path) {
        Thread t =
                new Thread(
                        () -> {
                            try {
                                FileSystem fs = fileSystem(new Path(path));
                                if (!(fs instanceof RawLocalFileSystem)) {
                                    asyncReaders.computeIfAbsent(fs, HadoopFileStore::asyncReader);
                                }
                            } catch (IOException | RuntimeException | LinkageError e) {
                                LOG.debug("Preparing asynchronous reads of {} failed", path, e);
                            }
                        },
                        "parquet-lookup-prepare-async-reads");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Whether an asynchronous read of a remote file was made, so its client exists (S3: the SDK's
     * asynchronous client and its event loops); opening files and blocking reads start none. For
     * tests.
     */
    public boolean asyncReadsStarted() {
        return !asyncReaders.isEmpty();
    }

    /**
     * Whether a file system other than the local one was created (an object store's client): such a
     * store is worth keeping open for the next user.
     */
    public boolean hasRemoteFileSystem() {
        for (FileSystem fs : fileSystems.values()) {
            if (!(fs instanceof RawLocalFileSystem)
                    && !(fs instanceof org.apache.hadoop.fs.LocalFileSystem)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        BlockingReads pool = blockingReads;
        if (pool != null) {
            pool.close();
        }
        for (Optional<AsyncRangeReader> reader : asyncReaders.values()) {
            reader.ifPresent(AsyncRangeReader::close);
        }
        asyncReaders.clear();
        IOException first = null;
        for (FileSystem fs : fileSystems.values()) {
            try {
                fs.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        fileSystems.clear();
        if (first != null) {
            throw first;
        }
    }

    private FileSystem fileSystem(Path path) throws IOException {
        URI uri = path.toUri();
        String scheme = uri.getScheme() == null ? "file" : uri.getScheme();
        String key = scheme + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority());
        try {
            return fileSystems.computeIfAbsent(key, k -> newFileSystem(scheme, path));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private FileSystem newFileSystem(String scheme, Path path) {
        try {
            if (scheme.equals("file") && conf.get("fs.file.impl") == null) {
                RawLocalFileSystem local = new RawLocalFileSystem();
                local.initialize(URI.create("file:///"), conf);
                return local;
            }
            return FileSystem.newInstance(path.toUri(), conf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The status is kept only where it carries an ETag (S3A, ABFS): that is what pins the version
     * at open. Local statuses are not kept (they may run {@code ls} when printed).
     */
    private static FileId toFileId(FileStatus status) {
        String etag = status instanceof EtagSource tagged ? tagged.getEtag() : null;
        if (etag != null && etag.isEmpty()) {
            etag = null;
        }
        return new FileId(
                status.getPath().toString(),
                status.getLen(),
                status.getModificationTime(),
                etag,
                etag == null ? null : status);
    }

    /** Hidden and metadata names ({@code .crc}, {@code _SUCCESS}, {@code _tmp/}) are skipped. */
    private static boolean isDataFile(Path root, Path file) {
        for (Path p = file;
                p != null && !p.equals(root) && p.getParent() != null;
                p = p.getParent()) {
            String name = p.getName();
            if (name.startsWith(".") || name.startsWith("_")) {
                return false;
            }
            if (p.depth() <= root.depth()) {
                break;
            }
        }
        return true;
    }
}
