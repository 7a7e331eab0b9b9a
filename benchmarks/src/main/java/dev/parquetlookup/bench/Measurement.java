package dev.parquetlookup.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The timed loop: {@code threads} threads take keys from one sequence in order (a shared counter,
 * so the answered keys always form a prefix of the sequence) until the time is up or the keys run
 * out, recording every lookup's latency.
 */
final class Measurement {

    /** One timed run of one system. */
    record Run(
            long ops, long wallNanos, long[] sortedLatencies, long bytes, long reads, int prefix) {

        double opsPerSec() {
            return ops * 1e9 / Math.max(1, wallNanos);
        }

        double percentileMicros(double p) {
            if (sortedLatencies.length == 0) {
                return 0;
            }
            int i =
                    (int)
                            Math.min(
                                    sortedLatencies.length - 1,
                                    Math.round(p * (sortedLatencies.length - 1)));
            return sortedLatencies[i] / 1e3;
        }
    }

    private Measurement() {}

    /**
     * Runs {@code system} over {@code keys}. When {@code answers} is given, each answer's {@link
     * Fingerprint#answer} is stored at its key's index; an index answered differently before fails
     * the run (a system must be deterministic).
     */
    static Run run(
            LookupSystem system, long[] keys, long[] answers, int threads, long durationNanos)
            throws Exception {
        List<LookupSystem.Session> sessions = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            sessions.add(system.session());
        }
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[][] latencies = new long[threads][];
        int[] counts = new int[threads];
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] startNanos = new long[1];
        long bytesBefore = system.bytesRead();
        long readsBefore = system.readRequests();
        boolean check = answers != null && system.answers();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            LookupSystem.Session session = sessions.get(t);
            Thread worker =
                    new Thread(
                            () -> {
                                long[] lat = new long[keys.length];
                                int n = 0;
                                try {
                                    ready.countDown();
                                    go.await();
                                    long start = startNanos[0];
                                    while (failure.get() == null) {
                                        int i = next.getAndIncrement();
                                        if (i >= keys.length) {
                                            break;
                                        }
                                        long t0 = System.nanoTime();
                                        String v = session.lookup(keys[i]);
                                        long t1 = System.nanoTime();
                                        lat[n++] = t1 - t0;
                                        if (check) {
                                            long h = Fingerprint.answer(i, keys[i], v);
                                            long before = answers[i];
                                            if (before != 0 && before != h) {
                                                throw new IllegalStateException(
                                                        system.name()
                                                                + " answered key "
                                                                + keys[i]
                                                                + " differently in two runs");
                                            }
                                            answers[i] = h;
                                        }
                                        if (t1 - start >= durationNanos) {
                                            break;
                                        }
                                    }
                                } catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                } finally {
                                    latencies[id] = lat;
                                    counts[id] = n;
                                }
                            },
                            "bench-" + system.name() + "-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        startNanos[0] = System.nanoTime();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long wall = System.nanoTime() - startNanos[0];
        for (LookupSystem.Session session : sessions) {
            session.close();
        }
        Throwable error = failure.get();
        if (error != null) {
            throw new IllegalStateException(
                    "system " + system.name() + " failed during a timed run: " + error, error);
        }
        int total = 0;
        for (int c : counts) {
            total += c;
        }
        long[] all = new long[total];
        int pos = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(latencies[t], 0, all, pos, counts[t]);
            pos += counts[t];
        }
        Arrays.sort(all);
        long bytes = bytesBefore < 0 ? -1 : system.bytesRead() - bytesBefore;
        long reads = readsBefore < 0 ? -1 : system.readRequests() - readsBefore;
        int prefix = Math.min(next.get(), keys.length);
        return new Run(total, wall, all, bytes, reads, prefix);
    }
}
