package dev.parquetlookup.bench;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.io.hedge.HedgedRangeReader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tail case without Flink, S3Proxy or network, so that a loaded machine's CPU does not set the
 * figures: {@link HedgedRangeReader} (default settings) in front of a simulated store answering
 * each ranged GET after D = 20 ms plus a random server time (median 8 ms; {@code quiet}: spread
 * 0.5, {@code loaded}: 1.2, log-logistic), holding 1 in 50 requests (hedges included, counted as
 * {@code LatencyProxy} does) a further 3-8 s (seeded). Two "subtasks" each keep 32 lookups of 2
 * GETs in flight and emit them in order, as Flink's ordered asynchronous output does. A lookup's
 * two GETs go out in one wave (a cold lookup: its key page and value page together, the default)
 * or, with {@code waves} 2, one after the other (the key page, then the value page), to show what
 * the one-wave read costs in the lookups' tail. Prints per shape and waves events/s without and
 * with holds, their ratio, the lookups' p99 over the median GET, and the hedges.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.parquetlookup.bench.HedgeSimulation 17 quiet,loaded 1,2
 * </pre>
 */
public final class HedgeSimulation {

    private static final FileId FILE = new FileId("s3a://b/f.parquet", 1 << 20, 1L, "\"e\"", null);
    private static final int SUBTASKS = 2;
    private static final int LOOKUPS_IN_FLIGHT = 32;
    private static final long WARM_UP_NANOS = 2_000_000_000L;

    private HedgeSimulation() {}

    /** The simulated store: answers on a scheduler, holds 1 in 50 requests. */
    private static final class Store implements AsyncRangeReader {
        private final ScheduledThreadPoolExecutor answers;
        private final boolean holds;
        private final double spread;
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong held = new AtomicLong();
        private final SplittableRandom random = new SplittableRandom(42);
        private final SplittableRandom holdTimes = new SplittableRandom(20_261_205L);

        Store(ScheduledThreadPoolExecutor answers, boolean holds, double spread) {
            this.answers = answers;
            this.holds = holds;
            this.spread = spread;
        }

        @Override
        public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
            long n = requests.getAndIncrement();
            long nanos;
            synchronized (this) {
                double u = random.nextDouble();
                double z = Math.log(u / (1 - u)) / 1.7; // about a standard normal
                nanos = 20_000_000L + (long) (8_000_000 * Math.exp(spread * z));
                if (holds && n % 50 == 49) {
                    nanos += 3_000_000_000L + holdTimes.nextLong(5_000_000_000L);
                    held.incrementAndGet();
                }
            }
            CompletableFuture<byte[][]> answer = new CompletableFuture<>();
            int length = ranges.get(0).length();
            ScheduledFuture<?> task =
                    answers.schedule(
                            () -> answer.complete(new byte[][] {new byte[length]}),
                            nanos,
                            TimeUnit.NANOSECONDS);
            answer.whenComplete(
                    (bytes, failure) -> {
                        if (answer.isCancelled()) {
                            task.cancel(false);
                        }
                    });
            return answer;
        }

        @Override
        public void close() {}
    }

    private record Lookup(long startNanos, CompletableFuture<byte[][]> answer, long[] doneNanos) {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 17;
        String shapes = args.length > 1 ? args[1] : "quiet,loaded";
        String waves = args.length > 2 ? args[2] : "1";
        ScheduledThreadPoolExecutor answers = new ScheduledThreadPoolExecutor(2);
        answers.setRemoveOnCancelPolicy(true);
        try {
            for (String shape : shapes.split(",")) {
                double spread = shape.equals("loaded") ? 1.2 : 0.5;
                for (String w : waves.split(",")) {
                    double base = 0;
                    for (boolean holds : new boolean[] {false, true}) {
                        base =
                                run(
                                        answers,
                                        shape,
                                        spread,
                                        Integer.parseInt(w) > 1,
                                        holds,
                                        seconds,
                                        base);
                    }
                }
            }
        } finally {
            answers.shutdownNow();
        }
    }

    /** One run; returns its events/s, or {@code base} with holds. */
    private static double run(
            ScheduledThreadPoolExecutor answers,
            String shape,
            double spread,
            boolean twoWaves,
            boolean holds,
            double seconds,
            double base)
            throws Exception {
        Store store = new Store(answers, holds, spread);
        HedgeStatistics stats = new HedgeStatistics();
        AsyncRangeReader reader =
                HedgedRangeReader.hedged(store, HedgedRangeReader.Settings.defaults(), stats);
        long start = System.nanoTime();
        long warm = start + WARM_UP_NANOS;
        long end = start + (long) (seconds * 1e9);
        AtomicLong emitted = new AtomicLong();
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        List<Thread> subtasks = new ArrayList<>();
        for (int t = 0; t < SUBTASKS; t++) {
            Thread subtask =
                    new Thread(
                            () -> subtask(reader, twoWaves, warm, end, emitted, latencies),
                            "subtask-" + t);
            subtask.start();
            subtasks.add(subtask);
        }
        for (Thread subtask : subtasks) {
            subtask.join();
        }
        reader.close();
        double eventsPerSecond = emitted.get() / (seconds - WARM_UP_NANOS / 1e9);
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        long p50 = sorted[sorted.length / 2] / 1000;
        long p99 = sorted[(int) (sorted.length * 0.99)] / 1000;
        System.out.printf(
                Locale.ROOT,
                "SIM %s waves=%d holds=%s events/s=%.0f ratio=%.2f p50_lookup_us=%d p99_lookup_us=%d"
                        + " median_get_us=%d delay_us=%d p99/median_get=%.1f gets=%d held=%d"
                        + " hedges=%d won=%d over_budget=%d extra=%.1f%% load=%s%n",
                shape,
                twoWaves ? 2 : 1,
                holds,
                eventsPerSecond,
                holds ? eventsPerSecond / base : 1.0,
                p50,
                p99,
                stats.medianMicros(),
                stats.delayMicros(),
                p99 / (double) stats.medianMicros(),
                stats.gets(),
                store.held.get(),
                stats.hedgesSent(),
                stats.hedgesWon(),
                stats.hedgesOverBudget(),
                100.0 * stats.hedgesSent() / stats.gets(),
                Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0]);
        return holds ? base : eventsPerSecond;
    }

    /**
     * Keeps 32 lookups in flight and emits them in order, counting those after the warm-up; a
     * lookup's two GETs in one wave, or one after the other ({@code twoWaves}).
     */
    private static void subtask(
            AsyncRangeReader reader,
            boolean twoWaves,
            long warm,
            long end,
            AtomicLong emitted,
            List<Long> latencies) {
        ArrayDeque<Lookup> out = new ArrayDeque<>();
        SplittableRandom random = new SplittableRandom(7);
        while (System.nanoTime() < end) {
            while (out.size() < LOOKUPS_IN_FLIGHT) {
                long offset = random.nextLong(1 << 19);
                long[] done = new long[1];
                FileRange keyPage = new FileRange(offset, 4096);
                FileRange valuePage = new FileRange(offset + 8192, 4096);
                CompletableFuture<byte[][]> answer =
                        twoWaves
                                ? reader.readAll(FILE, List.of(keyPage))
                                        .thenCompose(
                                                key -> reader.readAll(FILE, List.of(valuePage)))
                                : reader.readAll(FILE, List.of(keyPage, valuePage));
                answer.whenComplete((bytes, failure) -> done[0] = System.nanoTime());
                out.add(new Lookup(System.nanoTime(), answer, done));
            }
            out.peek().answer().join();
            while (!out.isEmpty() && out.peek().answer().isDone()) {
                Lookup lookup = out.poll();
                long now = System.nanoTime();
                if (now > warm && now < end) {
                    emitted.incrementAndGet();
                    while (lookup.doneNanos()[0] == 0) {
                        Thread.onSpinWait();
                    }
                    latencies.add(lookup.doneNanos()[0] - lookup.startNanos());
                }
            }
        }
        out.forEach(lookup -> lookup.answer().cancel(true));
    }
}
