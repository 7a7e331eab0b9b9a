package dev.parquetlookup.bench;

import dev.parquetlookup.engine.codec.PrefixDecompressor;

import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;

import io.airlift.compress.lz4.Lz4Decompressor;

import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Low-noise probes of the {@code reader} suite's protocol layout (1M rows, 1,024-row pages,
 * LZ4_RAW, no dictionary), run on their own: {@code java -cp benchmarks.jar
 * dev.parquetlookup.bench.ReaderProbe lz4|cpu [out dir] [rounds]}.
 *
 * <ul>
 *   <li>{@code lz4}: the seed file's real key and value pages decompressed by the engine's {@link
 *       PrefixDecompressor} loop (whole page and prefixes of 25/45/75% of it) and by
 *       aircompressor's {@code Lz4Decompressor} (whole page), from the mapped file into a heap
 *       array; rounds alternate the decoders, each figure is the median round's ns per page.
 *   <li>{@code cpu}: {@code parquet-lookup} (page cache off), {@code floor}, {@code floor-partial}
 *       and {@code floor-prefix} on the same keys, in many short alternating rounds; per system the
 *       median round's thread CPU time per lookup (ThreadMXBean: time other processes take on the
 *       shared cores does not count) and its wall p50, and the ratios ours/floor of each. Only
 *       {@link EngineSystem} and {@link FloorSystem} are used, so an older build's engine can be
 *       measured by putting its jar first on the class path: {@code -cp old.jar:benchmarks.jar}.
 * </ul>
 */
final class ReaderProbe {

    private ReaderProbe() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "cpu";
        Path out = Path.of(args.length > 1 ? args[1] : "/tmp/reader-probe");
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 21;
        SeedLayout layout = SeedLayout.lookupDefault(1_000_000L);
        Path file = SeedDataset.get(out, layout, System.out);
        System.out.println("PROBE load=" + load() + " file=" + file);
        if (mode.equals("lz4")) {
            lz4(file, rounds);
        } else {
            cpu(file, layout, rounds);
        }
        System.out.println("PROBE end load=" + load());
    }

    static String load() {
        try {
            String s = java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim();
            return s.substring(0, s.indexOf(' ', s.indexOf(' ', s.indexOf(' ') + 1) + 1));
        } catch (Exception e) {
            return "NA";
        }
    }

    // ---- lz4 ----

    /** One page payload: its slice of the mapping and its decompressed size. */
    private record Payload(ByteBuffer in, int size) {}

    private static void lz4(Path file, int rounds) throws Exception {
        for (String column : List.of("k", "v")) {
            List<Payload> pages = payloads(file, column);
            int max = pages.stream().mapToInt(Payload::size).max().orElse(1);
            byte[] out = new byte[max + 64];
            byte[] check = new byte[max + 64];
            Lz4Decompressor air = new Lz4Decompressor();
            // Same bytes from both decoders, before timing anything.
            for (Payload p : pages) {
                air.decompress(p.in.duplicate(), ByteBuffer.wrap(check, 0, p.size));
                ours(p, out, p.size);
                if (!Arrays.equals(out, 0, p.size, check, 0, p.size)) {
                    throw new IllegalStateException("decoders disagree on a page of " + column);
                }
            }
            double[] shares = {1.0, 0.25, 0.45, 0.75};
            List<Payload> heap = new ArrayList<>();
            for (Payload p : pages) {
                byte[] copy = new byte[p.in.remaining()];
                p.in.get(0, copy);
                heap.add(new Payload(ByteBuffer.wrap(copy), p.size));
            }
            Map<String, double[]> perRound = new LinkedHashMap<>();
            for (int r = 0; r < rounds; r++) {
                perRound.computeIfAbsent("aircompressor-whole-heap", n -> new double[rounds])[r] =
                        timePages(
                                heap,
                                p -> air.decompress(p.in.array(), 0, p.in.limit(), out, 0, p.size));
                perRound.computeIfAbsent("ours-whole-heap", n -> new double[rounds])[r] =
                        timePages(heap, p -> ours(p, out, p.size));
                perRound.computeIfAbsent("aircompressor-whole", n -> new double[rounds])[r] =
                        timePages(
                                pages,
                                p ->
                                        air.decompress(
                                                p.in.duplicate(), ByteBuffer.wrap(out, 0, p.size)));
                for (double share : shares) {
                    String name = share == 1.0 ? "ours-whole" : "ours-prefix" + (int) (share * 100);
                    perRound.computeIfAbsent(name, n -> new double[rounds])[r] =
                            timePages(pages, p -> ours(p, out, (int) (p.size * share)));
                }
            }
            long compressed = pages.stream().mapToLong(p -> p.in.remaining()).sum();
            long raw = pages.stream().mapToLong(Payload::size).sum();
            System.out.printf(
                    Locale.ROOT,
                    "PROBE lz4 column=%s pages=%d avg_compressed=%d avg_size=%d load=%s%n",
                    column,
                    pages.size(),
                    compressed / pages.size(),
                    raw / pages.size(),
                    load());
            double airNs = median(perRound.get("aircompressor-whole"));
            for (Map.Entry<String, double[]> e : perRound.entrySet()) {
                double ns = median(e.getValue());
                System.out.printf(
                        Locale.ROOT,
                        "PROBE lz4 column=%s decoder=%s cpu_ns_per_page=%.0f over_aircompressor_whole=%.2f%n",
                        column,
                        e.getKey(),
                        ns,
                        ns / airNs);
            }
        }
    }

    private interface PageTask {
        void run(Payload p) throws Exception;
    }

    /** Thread CPU ns per page over all pages (at least 100 ms of passes). */
    private static double timePages(List<Payload> pages, PageTask task) throws Exception {
        long start = System.nanoTime();
        long cpu = THREADS.getCurrentThreadCpuTime();
        long n = 0;
        do {
            for (Payload p : pages) {
                task.run(p);
            }
            n += pages.size();
        } while (System.nanoTime() - start < 100_000_000L);
        return (THREADS.getCurrentThreadCpuTime() - cpu) / (double) n;
    }

    /** The engine's loop up to {@code upTo} (the whole page through the loop, not the library). */
    private static void ours(Payload p, byte[] out, int upTo) throws Exception {
        PrefixDecompressor d =
                PrefixDecompressor.start(
                        CompressionCodecName.LZ4_RAW, p.in, 0, p.in.limit(), out, 0, p.size);
        if (upTo >= p.size) {
            d.ensure(p.size - 1); // a first call short of the end takes the loop
        }
        d.ensure(upTo);
        d.release();
    }

    private static List<Payload> payloads(Path file, String column) throws Exception {
        List<Payload> pages = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file));
                FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            for (BlockMetaData block : reader.getRowGroups()) {
                ColumnChunkMetaData chunk = null;
                for (ColumnChunkMetaData c : block.getColumns()) {
                    if (c.getPath().toDotString().equals(column)) {
                        chunk = c;
                    }
                }
                if (chunk.getCodec() != CompressionCodecName.LZ4_RAW) {
                    throw new IllegalStateException("column " + column + " is not LZ4_RAW");
                }
                OffsetIndex index = reader.readOffsetIndex(chunk);
                for (int i = 0; i < index.getPageCount(); i++) {
                    int offset = (int) index.getOffset(i);
                    int length = index.getCompressedPageSize(i);
                    byte[] bytes = new byte[length];
                    map.get(offset, bytes);
                    ByteArrayInputStream stream = new ByteArrayInputStream(bytes);
                    PageHeader header = Util.readPageHeader(stream);
                    int headerLength = length - stream.available();
                    pages.add(
                            new Payload(
                                    map.slice(offset + headerLength, length - headerLength),
                                    header.getUncompressed_page_size()));
                }
            }
        }
        return pages;
    }

    // ---- cpu ----

    /** One round of one system: CPU ns per lookup, wall p50 in us. */
    private record Round(double cpuNs, double p50Us) {}

    private static void cpu(Path file, SeedLayout layout, int rounds) throws Exception {
        List<LookupSystem> systems =
                List.of(
                        new EngineSystem(file, false),
                        new FloorSystem(file, layout),
                        new FloorSystem(file, layout, true),
                        new FloorSystem(file, layout, true, true));
        try {
            // A long first warm-up, alternating the systems as the rounds do: the engine and
            // floor-partial share the decompressor, so code compiled while one system ran alone
            // is recompiled once the other runs (slow on a loaded machine).
            long[] warm = KeyMix.UNIFORM.keys(layout.rows(), 400_000, 1);
            for (int w = 0; w < 12; w++) {
                for (LookupSystem s : systems) {
                    round(s, warm, 1 + w % 2, 400_000_000L);
                }
            }
            for (KeyMix mix : List.of(KeyMix.UNIFORM, KeyMix.ZIPF)) {
                for (int threads : new int[] {1, 2}) {
                    long[] keys = mix.keys(layout.rows(), 400_000, 0);
                    for (LookupSystem s : systems) {
                        round(s, keys, threads, 1_000_000_000L); // warm-up
                    }
                    Map<String, List<Round>> results = new LinkedHashMap<>();
                    for (int r = 0; r < rounds; r++) {
                        List<LookupSystem> order = new ArrayList<>(systems);
                        if (r % 2 == 1) {
                            java.util.Collections.reverse(order);
                        }
                        for (LookupSystem s : order) {
                            results.computeIfAbsent(s.name(), n -> new ArrayList<>())
                                    .add(round(s, keys, threads, 150_000_000L));
                        }
                    }
                    report(mix.label(), threads, results);
                }
            }
        } finally {
            for (LookupSystem s : systems) {
                s.close();
            }
        }
    }

    private static void report(String mix, int threads, Map<String, List<Round>> results) {
        Map<String, double[]> cpu = new LinkedHashMap<>();
        Map<String, double[]> p50 = new LinkedHashMap<>();
        results.forEach(
                (name, list) -> {
                    cpu.put(name, list.stream().mapToDouble(Round::cpuNs).toArray());
                    p50.put(name, list.stream().mapToDouble(Round::p50Us).toArray());
                });
        for (String name : results.keySet()) {
            System.out.printf(
                    Locale.ROOT,
                    "PROBE cpu case=%s threads=%d system=%s cpu_us_per_op=%.2f p50_us=%.1f"
                            + " rounds=%d load=%s%n",
                    mix,
                    threads,
                    name,
                    median(cpu.get(name)) / 1e3,
                    median(p50.get(name)),
                    results.get(name).size(),
                    load());
        }
        for (String floor : List.of("floor", "floor-partial", "floor-prefix")) {
            System.out.printf(
                    Locale.ROOT,
                    "PROBE ratio case=%s threads=%d parquet-lookup/%s cpu=%.2f p50=%.2f%n",
                    mix,
                    threads,
                    floor,
                    pairedMedian(cpu.get("parquet-lookup"), cpu.get(floor)),
                    pairedMedian(p50.get("parquet-lookup"), p50.get(floor)));
        }
    }

    /** Median over rounds of a[r] / b[r] (both measured back to back in round r). */
    private static double pairedMedian(double[] a, double[] b) {
        double[] r = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = a[i] / b[i];
        }
        return median(r);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** {@code threads} threads look up keys from a shared counter for {@code nanos}. */
    private static Round round(LookupSystem system, long[] keys, int threads, long nanos)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        long[] cpu = new long[threads];
        int[] counts = new int[threads];
        long[][] latencies = new long[threads][];
        Throwable[] failure = new Throwable[threads];
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            LookupSystem.Session session = system.session();
            Thread worker =
                    new Thread(
                            () -> {
                                long[] lat = new long[keys.length];
                                int n = 0;
                                try {
                                    go.await();
                                    long c0 = THREADS.getCurrentThreadCpuTime();
                                    long start = System.nanoTime();
                                    long t1 = start;
                                    while (t1 - start < nanos) {
                                        int i = next.getAndIncrement() % keys.length;
                                        long t0 = System.nanoTime();
                                        session.lookup(keys[i]);
                                        t1 = System.nanoTime();
                                        if (n < lat.length) {
                                            lat[n] = t1 - t0;
                                        }
                                        n++;
                                    }
                                    cpu[id] = THREADS.getCurrentThreadCpuTime() - c0;
                                    session.close();
                                } catch (Throwable e) {
                                    failure[id] = e;
                                }
                                counts[id] = n;
                                latencies[id] = lat;
                            });
            workers.add(worker);
            worker.start();
        }
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long cpuSum = 0;
        long ops = 0;
        List<Long> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            if (failure[t] != null) {
                throw new IllegalStateException(system.name() + " failed", failure[t]);
            }
            cpuSum += cpu[t];
            ops += counts[t];
            for (int i = 0; i < Math.min(counts[t], latencies[t].length); i++) {
                all.add(latencies[t][i]);
            }
        }
        long[] sorted = all.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Round(cpuSum / (double) Math.max(1, ops), sorted[sorted.length / 2] / 1e3);
    }
}
