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
 * <p>Object stores: a store with a client of its own ({@link AsyncRangeReaderFactory}, found by
 * scheme: {@code s3a://}) has every range of its files read through that client, the file system
 * only listing and stat-ing; other remote file systems, and S3A with settings its client does not
 * support, are read through the file system's streams, asynchronous reads on a bounded pool.
 *
 * <p>Either way a read never mixes versions. A store's client sends the listed ETag with each
 * request (S3: {@code If-Match}) and maps a refusal to {@link FileChangedException}. On the stream
 * path a listed file keeps its listing's {@link FileStatus} in its {@link FileId}, and {@link
 * #open} passes it to {@code openFile().withFileStatus(...)}. S3A then sends no HEAD and makes
 * every GET conditional on the listed ETag ({@code fs.s3a.change.detection.mode=server}, the
 * default, sends {@code If-Match}; {@code client} compares the ETag of each response): an object
 * overwritten in place fails the read with a {@link FileChangedException} instead of serving bytes
 * of the new object with metadata of the old one.
 */
public final class HadoopFileStore implements FileStore, IOStatisticsSource {

    /** Hadoop's option for the file length given to {@code openFile()}: saves a HEAD on S3. */
    private static final String OPENFILE_LENGTH = "fs.option.openfile.length";

    private static final String OPENFILE_READ_POLICY = "fs.option.openfile.read.policy";

    private static final Logger LOG = LoggerFactory.getLogger(HadoopFileStore.class);

    private final Configuration conf;
    private final boolean mapLocalFiles;
    private final Map<String, FileSystem> fileSystems = new ConcurrentHashMap<>();

    /**
     * Per file system: the factory of its store's client when that client reads its files, else
     * empty (its streams read them). Decided when its first file is opened.
     */
    private final Map<FileSystem, Optional<AsyncRangeReaderFactory>> clients =
            new ConcurrentHashMap<>();

    /**
     * Per file system and {@link Traffic}: an instance of its store's client, built on the first
     * read of that kind of one of its files.
     */
    private final Map<ReaderKey, AsyncRangeReader> readers = new ConcurrentHashMap<>();

    /**
     * Which instance of a store's client a read uses. Both are the same client (one HTTP stack, one
     * way errors are mapped); each has its own connections and event loops, so that a warm-up's
     * megabytes and the footers a refresh reads are not queued behind the lookups' thousands of
     * small GETs and the work that follows their answers, and do not delay them either (measured,
     * {@code objectstore --quick} at load 15: with one instance a 43 MB table's warm-up did not
     * finish within a 20 s job; with two it finished in 2-5 s; see docs/objectstore.md).
     */
    enum Traffic {
        /** Asynchronous reads: the lookups' pages and page indexes. */
        LOOKUPS,
        /**
         * Synchronous reads, the caller's thread waiting: footers, warm-up, the synchronous lookup
         * function's pages.
         */
        BULK
    }

    private record ReaderKey(FileSystem fs, Traffic traffic) {}

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

    /**
     * A remote file whose store has a client ({@link AsyncRangeReaderFactory}) is read through it,
     * every read; a local file through a memory mapping or positioned reads; any other through a
     * stream of its file system.
     */
    @Override
    public RangeSource open(FileId file) throws IOException {
        Path path = new Path(file.path());
        FileSystem fs = fileSystem(path);
        AsyncRangeReaderFactory client = client(fs);
        if (client != null) {
            return new ClientRangeSource(
                    file,
                    () -> reader(fs, client, Traffic.LOOKUPS),
                    () -> reader(fs, client, Traffic.BULK));
        }
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
            return new HadoopRangeSource(file, in, true, null);
        }
        return new HadoopRangeSource(file, in, false, this::blockingReads);
    }

    /**
     * The factory of the client that reads {@code fs}'s files, or null when its streams read them:
     * local files, a scheme without a client, or settings the client does not support (logged
     * once).
     */
    @Nullable
    private AsyncRangeReaderFactory client(FileSystem fs) {
        return clients.computeIfAbsent(fs, HadoopFileStore::findClient).orElse(null);
    }

    private static Optional<AsyncRangeReaderFactory> findClient(FileSystem fs) {
        String scheme = fs.getUri().getScheme();
        if (scheme == null || scheme.equals("file")) {
            return Optional.empty();
        }
        AsyncRangeReaderFactory factory = AsyncRangeReaderFactory.forScheme(scheme);
        if (factory == null) {
            return Optional.empty();
        }
        String unsupported;
        try {
            unsupported = factory.unsupported(fs);
        } catch (LinkageError e) {
            unsupported = "its client's classes are not on the class path (" + e + ")";
        }
        if (unsupported != null) {
            LOG.info(
                    "{}: {}: reads go through the file system's own streams",
                    fs.getUri(),
                    unsupported);
            return Optional.empty();
        }
        return Optional.of(factory);
    }

    /** {@code fs}'s client for {@code traffic}, built on the first call. */
    private AsyncRangeReader reader(
            FileSystem fs, AsyncRangeReaderFactory factory, Traffic traffic) {
        return readers.computeIfAbsent(
                new ReaderKey(fs, traffic),
                key -> {
                    FileSystem f = key.fs();
                    try {
                        return factory.create(f);
                    } catch (IOException e) {
                        throw new UncheckedIOException(
                                new IOException(
                                        "cannot set up the client of "
                                                + f.getUri()
                                                + ": "
                                                + CauseChain.describe(e),
                                        e));
                    }
                });
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
     * requests; the GETs of a stream are added when it closes, see {@code HadoopRangeSource}; the
     * requests of a store's own client, {@link AsyncRangeReader}, are not counted here). For
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
     * Starts creating the client of {@code path}'s store on a daemon thread, so that it overlaps
     * opening the table instead of delaying the first read (the AWS SDK's HTTP client and its event
     * loops take 0.3-1.2 s to start in a fresh JVM). Does nothing for local paths or when the
     * client exists; failures are left to the first read, which meets them again.
     */
    public void prepareAsyncReads(String path) {
        Thread t =
                new Thread(
                        () -> {
                            try {
                                FileSystem fs = fileSystem(new Path(path));
                                AsyncRangeReaderFactory client = client(fs);
                                if (client != null) {
                                    reader(fs, client, Traffic.LOOKUPS);
                                }
                            } catch (IOException | RuntimeException | LinkageError e) {
                                LOG.debug("Preparing the client of {} failed", path, e);
                            }
                        },
                        "parquet-lookup-prepare-async-reads");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Whether a store's client was built (S3: the HTTP client and its event loops): a read of a
     * remote file was made, or {@link #prepareAsyncReads}; opening files starts none. For tests.
     */
    public boolean asyncReadsStarted() {
        return !readers.isEmpty();
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
        readers.values().forEach(AsyncRangeReader::close);
        readers.clear();
        clients.clear();
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
