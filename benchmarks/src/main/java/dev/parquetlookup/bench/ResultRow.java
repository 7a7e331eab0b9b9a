package dev.parquetlookup.bench;

import javax.annotation.Nullable;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One measured row of the output contract, printed as a {@code RESULT} line and written to {@code
 * results.csv}.
 *
 * <p>Example line: {@code RESULT suite=reader system=duckdb case=uniform threads=1 ops_per_s=262
 * p50_us=3790.1 p99_us=5012.0 bytes_per_op=NA reads_per_op=NA heap_mb=3 ops_per_s_min=250
 * ops_per_s_max=270 reps=3}. {@code NA} marks a figure the system does not expose.
 *
 * @param opsPerSec median over the repetitions
 * @param extra further fields, appended after the contract's fields in insertion order
 */
public record ResultRow(
        String suite,
        String system,
        String caseName,
        int threads,
        double opsPerSec,
        double p50Micros,
        double p99Micros,
        @Nullable Double bytesPerOp,
        @Nullable Double readsPerOp,
        @Nullable Double heapMb,
        double opsPerSecMin,
        double opsPerSecMax,
        int repetitions,
        Map<String, String> extra) {

    public ResultRow {
        extra = new LinkedHashMap<>(extra);
    }

    static final String CSV_HEADER =
            "suite,system,case,threads,ops_per_s,p50_us,p99_us,bytes_per_op,reads_per_op,heap_mb,"
                    + "ops_per_s_min,ops_per_s_max,reps,extra";

    /** The {@code RESULT ...} line. */
    public String line() {
        StringBuilder sb = new StringBuilder("RESULT");
        sb.append(" suite=").append(suite);
        sb.append(" system=").append(system);
        sb.append(" case=").append(caseName);
        sb.append(" threads=").append(threads);
        sb.append(" ops_per_s=").append(fmt0(opsPerSec));
        sb.append(" p50_us=").append(fmt1(p50Micros));
        sb.append(" p99_us=").append(fmt1(p99Micros));
        sb.append(" bytes_per_op=").append(bytesPerOp == null ? "NA" : fmt0(bytesPerOp));
        sb.append(" reads_per_op=").append(readsPerOp == null ? "NA" : fmt2(readsPerOp));
        sb.append(" heap_mb=").append(heapMb == null ? "NA" : fmt0(heapMb));
        sb.append(" ops_per_s_min=").append(fmt0(opsPerSecMin));
        sb.append(" ops_per_s_max=").append(fmt0(opsPerSecMax));
        sb.append(" reps=").append(repetitions);
        extra.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        return sb.toString();
    }

    /** One line of {@code results.csv} (extra fields joined as {@code k=v;k=v}). */
    public String csv() {
        StringBuilder extras = new StringBuilder();
        extra.forEach(
                (k, v) -> {
                    if (extras.length() > 0) {
                        extras.append(';');
                    }
                    extras.append(k).append('=').append(v);
                });
        return String.join(
                ",",
                suite,
                system,
                caseName,
                Integer.toString(threads),
                fmt0(opsPerSec),
                fmt1(p50Micros),
                fmt1(p99Micros),
                bytesPerOp == null ? "NA" : fmt0(bytesPerOp),
                readsPerOp == null ? "NA" : fmt2(readsPerOp),
                heapMb == null ? "NA" : fmt0(heapMb),
                fmt0(opsPerSecMin),
                fmt0(opsPerSecMax),
                Integer.toString(repetitions),
                '"' + extras.toString().replace("\"", "'") + '"');
    }

    /** Parses a {@code RESULT} line (as printed by {@link #line()}), e.g. from a child JVM. */
    static ResultRow parse(String line) {
        if (!line.startsWith("RESULT ")) {
            throw new IllegalArgumentException("not a RESULT line: " + line);
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (String part : line.substring(7).trim().split(" ")) {
            int eq = part.indexOf('=');
            f.put(part.substring(0, eq), part.substring(eq + 1));
        }
        Map<String, String> extra = new LinkedHashMap<>(f);
        for (String k :
                new String[] {
                    "suite",
                    "system",
                    "case",
                    "threads",
                    "ops_per_s",
                    "p50_us",
                    "p99_us",
                    "bytes_per_op",
                    "reads_per_op",
                    "heap_mb",
                    "ops_per_s_min",
                    "ops_per_s_max",
                    "reps"
                }) {
            extra.remove(k);
        }
        return new ResultRow(
                f.get("suite"),
                f.get("system"),
                f.get("case"),
                Integer.parseInt(f.get("threads")),
                Double.parseDouble(f.get("ops_per_s")),
                Double.parseDouble(f.get("p50_us")),
                Double.parseDouble(f.get("p99_us")),
                na(f.get("bytes_per_op")),
                na(f.get("reads_per_op")),
                na(f.get("heap_mb")),
                Double.parseDouble(f.get("ops_per_s_min")),
                Double.parseDouble(f.get("ops_per_s_max")),
                Integer.parseInt(f.get("reps")),
                extra);
    }

    /** The same row under another case name and with more extra fields. */
    ResultRow withCase(String newCase, Map<String, String> more) {
        Map<String, String> e = new LinkedHashMap<>(extra);
        e.putAll(more);
        return new ResultRow(
                suite,
                system,
                newCase,
                threads,
                opsPerSec,
                p50Micros,
                p99Micros,
                bytesPerOp,
                readsPerOp,
                heapMb,
                opsPerSecMin,
                opsPerSecMax,
                repetitions,
                e);
    }

    private static Double na(String v) {
        return v == null || v.equals("NA") ? null : Double.valueOf(v);
    }

    static String fmt0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String fmt2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
