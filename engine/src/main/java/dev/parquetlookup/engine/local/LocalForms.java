package dev.parquetlookup.engine.local;

import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.MetadataCache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The local forms of one directory: files whose pages are far larger than a lookup needs ({@link
 * PageSizeRule}) copied once into small pages with a page index ({@link LocalFormBuilder}), so that
 * lookups read one small page per column instead of a whole column chunk.
 *
 * <p>Shared JVM-wide ({@link #shared}): every table and slot of a TaskManager asks the same
 * instance, which settles each source file version once (single flight: concurrent askers share one
 * check or build), in the background on one daemon thread. Until a file's form is ready, {@link
 * #servedFile} answers the source itself, so lookups are served the slow way meanwhile; listeners
 * ({@link #onReady}) hear when a form becomes ready, so a table can swap in a snapshot that reads
 * it.
 *
 * <p>A form is believed only after its bytes matched the CRC32C in its manifest, once per JVM
 * (forms found from an earlier run too); a damaged or truncated form is deleted and rebuilt. Disk
 * use is bounded by {@code maxBytes}: forms not used in this JVM are evicted to make room, and a
 * file whose form does not fit is served the slow way (logged, counted in {@link
 * Stats#overBudget()}). When a source file is replaced (same path, new identity), the old version's
 * form is deleted once the new one is ready; when a refresh drops a file, its form is deleted
 * ({@link #discard}), and a form still building then is deleted when its build ends.
 *
 * <pre>{@code
 * LocalForms forms = LocalForms.shared(Path.of("/tmp/parquet-lookup-local-forms"), 8L << 30);
 * FileId read = forms.servedFile(id, store, List.of("id")); // id itself until the form is ready
 * }</pre>
 */
public final class LocalForms {

    private static final Logger LOG = LoggerFactory.getLogger(LocalForms.class);

    /** The shared instances, by directory: the documented JVM-wide cache of local forms. */
    private static final Map<Path, LocalForms> SHARED = new HashMap<>();

    /** The name of the local forms' directory below a TaskManager's cache directory. */
    public static final String DEFAULT_DIRECTORY_NAME = "parquet-lookup-local-forms";

    private final Path directory;
    private final long maxBytes;
    private final LocalFormBuilder builder;
    private final ExecutorService executor;

    /** Per source file version, its settling: a check or build, then its outcome. */
    private final Map<FileId, CompletableFuture<Outcome>> settled = new ConcurrentHashMap<>();

    /** The ready form of each source file version: what {@link #servedFile} answers. */
    private final Map<FileId, FileId> readyForms = new ConcurrentHashMap<>();

    /** Forms on disk by data file, with their length: what counts against {@code maxBytes}. */
    private final Map<Path, Long> onDisk = new ConcurrentHashMap<>();

    /** The ready form of each source path, to delete when the path's file is replaced. */
    private final Map<String, FileId> readyByPath = new ConcurrentHashMap<>();

    /**
     * Makes a form ready and discards one as one step each ({@link #complete}, {@link #discard}).
     */
    private final Object registry = new Object();

    private final List<Consumer<FileId>> listeners = new CopyOnWriteArrayList<>();

    /** Metadata caches of the tables opened over these forms: their footers spare a file read. */
    private final Set<MetadataCache> caches =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    /** Settles asked for while tables open, started when the last open ends ({@link #opening}). */
    private final List<Runnable> deferred = new ArrayList<>(); // guarded by itself

    private int opening; // guarded by deferred
    private final Object budgetLock = new Object();
    private long reservedBytes;

    private final AtomicLong built = new AtomicLong();
    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong damaged = new AtomicLong();
    private final AtomicLong overBudget = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong rowsBuilt = new AtomicLong();
    private final AtomicLong buildNanos = new AtomicLong();

    /** Whether tables build and read local forms (the connector's {@code repage} option). */
    public enum Mode {
        /** Files the rule picks get a local form, read once it is ready (the default). */
        AUTO("auto"),
        /** Every file is read as it is. */
        OFF("off");

        private final String optionValue;

        Mode(String optionValue) {
            this.optionValue = optionValue;
        }

        /** The option value, so that option parsers (Flink's enum options) read and print it. */
        @Override
        public String toString() {
            return optionValue;
        }
    }

    /** How one source file version was settled. */
    public enum Kind {
        /** Its local form is ready: lookups read {@link Outcome#localFile()}. */
        READY,
        /** Its pages are small enough ({@link PageSizeRule}): served as it is. */
        NOT_NEEDED,
        /** Its form would not fit in the budget: served the slow way. */
        OVER_BUDGET,
        /** The check or build failed (logged): served the slow way, tried again at a later open. */
        FAILED
    }

    /**
     * The outcome of settling one file.
     *
     * @param localFile the form to read when {@code kind} is READY, else null
     * @param reason one line: the rule's verdict or the failure
     */
    public record Outcome(Kind kind, @Nullable FileId localFile, String reason) {}

    /**
     * Counters since this instance was created.
     *
     * @param built forms built
     * @param verified forms found on disk (an earlier run's) and believed after their CRC check
     * @param damaged forms found damaged, truncated or foreign, deleted (and rebuilt)
     * @param overBudget files served the slow way because their form did not fit
     * @param failed checks or builds that failed
     * @param bytes bytes of forms on disk now
     * @param rowsBuilt rows copied by builds
     * @param buildNanos time spent building
     */
    public record Stats(
            long built,
            long verified,
            long damaged,
            long overBudget,
            long failed,
            long bytes,
            long rowsBuilt,
            long buildNanos) {}

    private LocalForms(Path directory, long maxBytes, LocalFormBuilder builder) throws IOException {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        }
        this.directory = directory;
        this.maxBytes = maxBytes;
        this.builder = builder;
        Files.createDirectories(directory);
        this.executor =
                DaemonThreads.idleEndingPool(1, DaemonThreads.jvmWide("parquet-lookup-local-form"));
        // Forms of an earlier run count against the budget until evicted or used.
        try (Stream<Path> files = Files.list(directory)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (name.endsWith(LocalFormFile.DATA_SUFFIX)) {
                    onDisk.put(p, Files.size(p));
                } else if (name.endsWith(".tmp")) {
                    Files.deleteIfExists(p); // a build cut off by the end of a JVM
                }
            }
        }
    }

    /**
     * The JVM-wide instance for {@code directory}, created on first use with {@code maxBytes}
     * (later callers share it and its first bound).
     */
    public static LocalForms shared(Path directory, long maxBytes) throws IOException {
        Path key = directory.toAbsolutePath().normalize();
        synchronized (SHARED) {
            LocalForms forms = SHARED.get(key);
            if (forms == null || !Files.isDirectory(key)) {
                forms = new LocalForms(key, maxBytes, LocalFormBuilder.DEFAULT);
                SHARED.put(key, forms);
            }
            return forms;
        }
    }

    /** An instance of its own (tests, tools): not shared, with a given builder. */
    static LocalForms open(Path directory, long maxBytes, LocalFormBuilder builder)
            throws IOException {
        return new LocalForms(directory.toAbsolutePath().normalize(), maxBytes, builder);
    }

    public Path directory() {
        return directory;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /**
     * The file lookups should read for {@code source}: its local form when it is ready, else {@code
     * source} itself; the first call for a file version starts settling it in the background
     * (reading it through {@code store}).
     *
     * @param keyColumns the table's sort key (written uncompressed in the form), or empty
     */
    public FileId servedFile(FileId source, FileStore store, List<String> keyColumns) {
        FileId local = readyForms.get(source);
        if (local == null) {
            settle(source, store, keyColumns);
            return source;
        }
        if (Files.isRegularFile(Path.of(URI.create(local.path())))) {
            return local;
        }
        // Gone (its directory removed with a disk tier, or by hand): settle again.
        readyForms.remove(source, local);
        CompletableFuture<Outcome> f = settled.get(source);
        if (f != null && f.isDone()) {
            settled.remove(source, f);
        }
        settle(source, store, keyColumns);
        return source;
    }

    /**
     * Settles {@code source} once: finds its verified form, or applies the rule and builds one, in
     * the background. Concurrent and later callers get the same future, which completes after the
     * {@linkplain #onReady listeners} heard of a ready form.
     */
    public CompletableFuture<Outcome> settle(
            FileId source, FileStore store, List<String> keyColumns) {
        CompletableFuture<Outcome> existing = settled.get(source);
        if (existing != null) {
            return existing;
        }
        CompletableFuture<Outcome> mine = new CompletableFuture<>();
        existing = settled.putIfAbsent(source, mine);
        if (existing != null) {
            return existing;
        }
        try {
            start(() -> complete(mine, source, store, keyColumns));
        } catch (RuntimeException e) {
            settled.remove(source, mine);
            mine.complete(new Outcome(Kind.FAILED, null, e.toString()));
        }
        return mine;
    }

    /**
     * Holds back the checks and builds that the files of a table being opened ask for until the
     * returned handle is closed (when the open ends, failed or not): the open's reads go first, and
     * each check then reads the footer the open cached in {@code metadata} instead of the file (on
     * an object store two or three requests fewer per file).
     *
     * <pre>{@code
     * try (LocalForms.Hold hold = forms.opening(config.metadataCache())) {
     *     ... open the table's files ...
     * }
     * }</pre>
     */
    public Hold opening(MetadataCache metadata) {
        caches.add(metadata);
        synchronized (deferred) {
            opening++;
        }
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            List<Runnable> start;
            synchronized (deferred) {
                if (--opening > 0) {
                    return;
                }
                start = List.copyOf(deferred);
                deferred.clear();
            }
            start.forEach(executor::execute);
        };
    }

    /** A table's open in progress ({@link #opening}); closing it twice is harmless. */
    public interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    private void start(Runnable settling) {
        synchronized (deferred) {
            if (opening > 0) {
                deferred.add(settling);
                return;
            }
        }
        executor.execute(settling);
    }

    /** The outcome so far for {@code source}, or null when it is not settled (yet). */
    @Nullable
    public Outcome outcome(FileId source) {
        CompletableFuture<Outcome> f = settled.get(source);
        return f == null ? null : f.getNow(null);
    }

    /**
     * Calls {@code listener} (on the background thread) with each source file whose form becomes
     * ready. Closing the returned handle stops it.
     */
    public AutoCloseable onReady(Consumer<FileId> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /**
     * Deletes the forms of {@code sources}, files a refresh dropped from a table: their ready forms
     * at once (as a replaced file's old form goes), those still being checked or built when that
     * ends (a settle held back by {@link #opening} runs and finds it so). A file asked for again
     * later ({@link #servedFile}) is settled anew.
     */
    public void discard(Set<FileId> sources) {
        for (FileId source : sources) {
            FileId form;
            synchronized (registry) {
                settled.remove(source); // an unfinished settle finds itself discarded at its end
                form = readyForms.remove(source);
                readyByPath.remove(source.path(), source);
            }
            if (form != null) {
                LOG.info("Deleting the local form of {}: the file left the table", source);
                discard(LocalFormFile.of(directory, source));
            }
        }
    }

    public Stats stats() {
        long bytes = 0;
        for (long b : onDisk.values()) {
            bytes += b;
        }
        return new Stats(
                built.get(),
                verified.get(),
                damaged.get(),
                overBudget.get(),
                failed.get(),
                bytes,
                rowsBuilt.get(),
                buildNanos.get());
    }

    // ---------------------------------------------------------------- settling, in the background

    private void complete(
            CompletableFuture<Outcome> future,
            FileId source,
            FileStore store,
            List<String> keyColumns) {
        Outcome outcome;
        try {
            outcome = settleNow(source, store, keyColumns);
        } catch (IOException | RuntimeException e) {
            failed.incrementAndGet();
            LOG.warn(
                    "Local form of {} failed, its lookups read its large pages: {}",
                    source,
                    e.toString());
            outcome = new Outcome(Kind.FAILED, null, e.toString());
        }
        if (outcome.kind() == Kind.FAILED) {
            settled.remove(source, future); // tried again at the next open of the file
        }
        if (outcome.kind() == Kind.READY && !register(future, source, outcome)) {
            LOG.info(
                    "Deleting the local form of {}: the file left the table while it was built",
                    source);
            discard(LocalFormFile.of(directory, source));
        } else if (outcome.kind() == Kind.READY) {
            for (Consumer<FileId> l : listeners) {
                try {
                    l.accept(source);
                } catch (RuntimeException e) {
                    LOG.warn("A listener of local form {} failed: {}", source, e.toString());
                }
            }
        }
        future.complete(outcome);
    }

    private Outcome settleNow(FileId source, FileStore store, List<String> keyColumns)
            throws IOException {
        LocalFormFile form = LocalFormFile.of(directory, source);
        LocalFormFile.Manifest manifest =
                Files.exists(form.manifestPath()) ? form.manifest() : null;
        if (manifest != null && manifest.describes(source) && form.matches(manifest, true)) {
            verified.incrementAndGet();
            onDisk.put(form.data(), manifest.length());
            LOG.info("Serving {} from its local form {} (checked)", source, form.data());
            return ready(form);
        }
        if (manifest != null || Files.exists(form.data())) {
            damaged.incrementAndGet();
            LOG.warn(
                    "Local form {} of {} is damaged, truncated or not this file's: rebuilding it",
                    form.data(),
                    source);
            discard(form);
        }
        LocalFormBuilder.Plan plan = builder.plan(source, store, List.copyOf(caches));
        if (!plan.verdict().localForm()) {
            LOG.debug("No local form for {}: {}", source, plan.verdict().reason());
            return new Outcome(Kind.NOT_NEEDED, null, plan.verdict().reason());
        }
        long estimate = plan.verdict().estimatedBytes();
        if (!reserve(estimate)) {
            overBudget.incrementAndGet();
            String reason =
                    String.format(
                            "its local form (about %,d bytes) does not fit in %,d bytes (%,d"
                                    + " used)",
                            estimate, maxBytes, stats().bytes());
            LOG.warn(
                    "Lookups in {} read its large pages ({}): {}. Raise the local form budget.",
                    source,
                    plan.verdict().reason(),
                    reason);
            return new Outcome(Kind.OVER_BUDGET, null, reason);
        }
        long start = System.nanoTime();
        LocalFormFile.Manifest written;
        try {
            written = builder.build(source, store, keyColumns, form);
        } catch (IOException | RuntimeException e) {
            form.delete();
            throw e;
        } finally {
            release(estimate);
        }
        long nanos = System.nanoTime() - start;
        built.incrementAndGet();
        rowsBuilt.addAndGet(written.rows());
        buildNanos.addAndGet(nanos);
        onDisk.put(form.data(), written.length());
        LOG.info(
                "Built the local form of {} ({}): {} rows, {} bytes in {} ms ({} rows/s) at {}",
                source,
                plan.verdict().reason(),
                written.rows(),
                written.length(),
                nanos / 1_000_000,
                nanos == 0 ? 0 : written.rows() * 1_000_000_000L / nanos,
                form.data());
        return ready(form);
    }

    private static Outcome ready(LocalFormFile form) throws IOException {
        return new Outcome(Kind.READY, form.fileId(), "ready");
    }

    /**
     * Makes {@code source}'s form the one lookups read, unless {@link #discard} dropped the file
     * while it settled (then false). A replaced file's old version's form goes.
     */
    private boolean register(CompletableFuture<Outcome> future, FileId source, Outcome outcome) {
        FileId previous;
        synchronized (registry) {
            if (settled.get(source) != future) {
                return false;
            }
            readyForms.put(source, outcome.localFile());
            previous = readyByPath.put(source.path(), source);
            if (previous != null && !previous.equals(source)) {
                settled.remove(previous);
                readyForms.remove(previous);
            }
        }
        if (previous != null && !previous.equals(source)) {
            // The path's file was replaced: its old version's form goes.
            discard(LocalFormFile.of(directory, previous));
        }
        return true;
    }

    private void discard(LocalFormFile form) {
        form.delete();
        onDisk.remove(form.data());
    }

    /** Reserves room for a build, evicting forms this JVM does not serve; false if none fits. */
    private boolean reserve(long bytes) {
        synchronized (budgetLock) {
            if (used() + bytes > maxBytes) {
                evictUnused();
            }
            if (used() + bytes > maxBytes) {
                return false;
            }
            reservedBytes += bytes;
            return true;
        }
    }

    private void release(long bytes) {
        synchronized (budgetLock) {
            reservedBytes -= bytes;
        }
    }

    private long used() {
        return stats().bytes() + reservedBytes;
    }

    /** Deletes the forms on disk that no file settled in this JVM reads. */
    private void evictUnused() {
        List<Path> inUse = new ArrayList<>();
        for (FileId id : readyByPath.values()) {
            inUse.add(LocalFormFile.of(directory, id).data());
        }
        for (Path data : List.copyOf(onDisk.keySet())) {
            if (!inUse.contains(data)) {
                String name = data.getFileName().toString();
                Path manifest =
                        data.resolveSibling(
                                name.substring(
                                                0,
                                                name.length() - LocalFormFile.DATA_SUFFIX.length())
                                        + LocalFormFile.MANIFEST_SUFFIX);
                LOG.info("Evicting the unused local form {} to make room", data);
                discard(new LocalFormFile(data, manifest));
            }
        }
    }

    @Override
    public String toString() {
        return "LocalForms{" + directory + ", " + stats() + "}";
    }
}
