package dev.parquetlookup.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Measures a set of systems on one key sequence the protocol's way: warm-up, then repetitions with
 * the order of the systems reversed every other time, then a fingerprint check of every answering
 * system against the seed dataset's definition. Shared by the reader and layout suites.
 */
final class CaseRunner {

    /** What one case produced per system. */
    record Outcome(
            Map<LookupSystem, List<Measurement.Run>> runs, int verifiedKeys, long fingerprint) {}

    private CaseRunner() {}

    static Outcome measure(
            String suite,
            String caseName,
            List<LookupSystem> systems,
            long rows,
            long[] keys,
            long[] warm,
            int threads,
            BenchOptions options,
            Report report)
            throws Exception {
        long runNanos = options.runMillis() * 1_000_000L;
        Map<LookupSystem, long[]> answers = new LinkedHashMap<>();
        Map<LookupSystem, List<Measurement.Run>> runs = new LinkedHashMap<>();
        for (LookupSystem system : systems) {
            answers.put(system, new long[keys.length]);
            runs.put(system, new ArrayList<>());
            Measurement.run(system, warm, null, threads, options.warmupMillis() * 1_000_000L);
        }
        for (int rep = 0; rep < options.repetitions(); rep++) {
            List<LookupSystem> order = new ArrayList<>(systems);
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (LookupSystem system : order) {
                runs.get(system)
                        .add(Measurement.run(system, keys, answers.get(system), threads, runNanos));
            }
        }
        int common = keys.length;
        for (Map.Entry<LookupSystem, List<Measurement.Run>> e : runs.entrySet()) {
            if (e.getKey().answers()) {
                int max = e.getValue().stream().mapToInt(Measurement.Run::prefix).max().orElse(0);
                common = Math.min(common, max);
            }
        }
        long expected = 0;
        long[] truth = new long[common];
        for (int i = 0; i < common; i++) {
            truth[i] = Fingerprint.answer(i, keys[i], truth(rows, keys[i]));
            expected += truth[i];
        }
        StringBuilder agreeing = new StringBuilder();
        for (Map.Entry<LookupSystem, long[]> e : answers.entrySet()) {
            LookupSystem system = e.getKey();
            if (!system.answers()) {
                continue;
            }
            long got = Fingerprint.sum(e.getValue(), common);
            if (got != expected) {
                int first = 0;
                while (first < common && e.getValue()[first] == truth[first]) {
                    first++;
                }
                throw new IllegalStateException(
                        String.format(
                                "fingerprint mismatch in suite=%s case=%s threads=%d: %s gave %s,"
                                        + " expected %s over the first %d keys; first wrong answer"
                                        + " at index %d (key %d, expected v=%s)",
                                suite,
                                caseName,
                                threads,
                                system.name(),
                                Fingerprint.hex(got),
                                Fingerprint.hex(expected),
                                common,
                                first,
                                first < common ? keys[first] : -1,
                                first < common ? truth(rows, keys[first]) : "?"));
            }
            agreeing.append(agreeing.length() == 0 ? "" : ",").append(system.name());
        }
        report.note(
                String.format(
                        "fingerprint suite=%s case=%s threads=%d keys=%d %s agree=%s",
                        suite, caseName, threads, common, Fingerprint.hex(expected), agreeing));
        return new Outcome(runs, common, expected);
    }

    /**
     * One key mix on one thread, as the single-file cases run it: 100,000 keys with {@code --quick}
     * (400,000 otherwise) after 50,000 warm-up keys, then one RESULT line a system. The case prints
     * its own RATIO lines.
     */
    static void measureOneThread(
            String suite,
            String caseName,
            KeyMix mix,
            List<LookupSystem> systems,
            BenchOptions options,
            Report report)
            throws Exception {
        measureOneThread(suite, caseName, mix, systems, options, report, Map.of(), Map.of());
    }

    /**
     * {@link #measureOneThread(String, String, KeyMix, List, BenchOptions, Report)} with what the
     * case measured of each system besides its lookups: the heap it retains ({@code heap_mb}; a
     * system without an entry prints NA) and further RESULT fields, both by system name.
     */
    static void measureOneThread(
            String suite,
            String caseName,
            KeyMix mix,
            List<LookupSystem> systems,
            BenchOptions options,
            Report report,
            Map<String, Long> heapBytes,
            Map<String, Map<String, String>> more)
            throws Exception {
        int count = options.quick() ? 100_000 : 400_000;
        long[] keys = mix.keys(options.rows(), count, 0);
        long[] warm = mix.keys(options.rows(), Math.min(count, 50_000), 1);
        Outcome outcome =
                measure(suite, caseName, systems, options.rows(), keys, warm, 1, options, report);
        for (LookupSystem system : systems) {
            report.result(
                    row(
                            suite,
                            system,
                            heapBytes.get(system.name()),
                            caseName,
                            1,
                            outcome.runs().get(system),
                            more.getOrDefault(system.name(), Map.of())));
        }
    }

    /** The seed dataset's answer for key k. */
    static String truth(long rows, long k) {
        return k >= 1 && k <= rows ? Md5Hex.of(k) : null;
    }

    /** The RESULT row of one system from its repetitions (median run, min and max). */
    static ResultRow row(
            String suite,
            LookupSystem system,
            Long heapBytes,
            String caseName,
            int threads,
            List<Measurement.Run> list,
            Map<String, String> more) {
        List<Measurement.Run> sorted = new ArrayList<>(list);
        sorted.sort((a, b) -> Double.compare(a.opsPerSec(), b.opsPerSec()));
        Measurement.Run median = sorted.get(sorted.size() / 2);
        long ops = 0;
        long bytes = 0;
        long reads = 0;
        for (Measurement.Run r : list) {
            ops += r.ops();
            bytes += r.bytes();
            reads += r.reads();
        }
        Double bytesPerOp = null;
        Double readsPerOp = null;
        if (system instanceof HashMapSystem) {
            bytesPerOp = 0.0;
            readsPerOp = 0.0;
        } else if (list.get(0).bytes() >= 0) {
            bytesPerOp = (double) bytes / Math.max(1, ops);
            readsPerOp = (double) reads / Math.max(1, ops);
        }
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("ops", Long.toString(ops));
        extra.putAll(more);
        return new ResultRow(
                suite,
                system.name(),
                caseName,
                threads,
                median.opsPerSec(),
                median.percentileMicros(0.50),
                median.percentileMicros(0.99),
                bytesPerOp,
                readsPerOp,
                heapBytes == null ? null : Double.valueOf(heapBytes / (1024.0 * 1024.0)),
                sorted.get(0).opsPerSec(),
                sorted.get(sorted.size() - 1).opsPerSec(),
                list.size(),
                extra);
    }
}
