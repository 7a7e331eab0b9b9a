package dev.parquetlookup.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code flink} suite's file layouts and, per layout, its variants: the table options (or
 * {@code null} for the regular join) and LOOKUP hints each variant runs with.
 */
final class FlinkLayouts {

    private FlinkLayouts() {}

    /** Files of the unsorted layout: the seed rows scrambled, in equal consecutive parts. */
    static final int UNSORTED_FILES = 10;

    /**
     * The names {@code --layout} takes, alone or as a comma-separated list: {@code both} is {@code
     * prepared,protocol}, and {@code protocol} brings {@code unsorted} and {@code secondary} with
     * it. {@code unsorted} and {@code secondary} alone run the protocol layout too, as their
     * reference (the same rows sorted, joined on the sort key), without its {@code FULL} variant.
     */
    static final List<String> LAYOUTS =
            List.of("both", "prepared", "protocol", "unsorted", "secondary");

    /** Suffix of a variant run with the layout's key indexes deleted before each of its jobs. */
    static final String COLD = "-cold";

    /**
     * One file layout measured.
     *
     * @param name {@code prepared}, {@code protocol}, {@code unsorted} or {@code secondary}
     * @param system the RESULT lines' system
     * @param casePrefix prefix of the RATIO lines' case names
     * @param files the number of files the rows are split into (a directory when more than one)
     * @param joinKey the dimension column the join looks up: {@code k} (the sort key) or {@code v}
     *     (a secondary key, served through a key index on {@code v})
     */
    record LayoutRun(
            String name,
            String system,
            String casePrefix,
            SeedLayout layout,
            Map<String, String> variants,
            int files,
            String joinKey) {

        LayoutRun(
                String name,
                String system,
                String casePrefix,
                SeedLayout layout,
                Map<String, String> variants) {
            this(name, system, casePrefix, layout, variants, 1, "k");
        }

        /** Joined on a secondary key: this layout's rows are another layout's, looked up by v. */
        boolean secondary() {
            return joinKey.equals("v");
        }

        /** Served through key indexes (unsorted files, or a secondary key). */
        boolean indexed() {
            return files > 1 || secondary();
        }

        String table(String variant) {
            return "dim_" + name + "_" + variant.replace('-', '_');
        }
    }

    /** The layouts of {@code --layout}: the writer's default first (the suite's main table). */
    static List<LayoutRun> of(BenchOptions options) {
        Set<String> wanted = selected(options.layout());
        boolean protocol = wanted.contains("protocol");
        boolean unsorted = protocol || wanted.contains("unsorted");
        boolean secondary = protocol || wanted.contains("secondary");
        List<LayoutRun> runs = new ArrayList<>();
        if (wanted.contains("prepared")) {
            // The layout users get from prepare: the connector as deployed.
            runs.add(
                    new LayoutRun(
                            "prepared",
                            FlinkSuite.SYSTEM,
                            "",
                            SeedLayout.writerDefault(options.rows()),
                            chosen(preparedVariants())));
        }
        if (protocol || unsorted || secondary) {
            // A user's files as parquet-java writes them (the seed protocol's lookup layout); when
            // only the reference of unsorted or secondary, without FULL (it loads the table into
            // every subtask and is not what they are compared with).
            runs.add(
                    new LayoutRun(
                            "protocol",
                            FlinkSuite.SYSTEM + "-protocol",
                            "protocol-",
                            SeedLayout.lookupDefault(options.rows()),
                            chosen(noCache(protocol))));
        }
        if (unsorted) {
            // The same rows in a scrambled order split over several files, served through the
            // key index the connector builds per file ('unsorted-files' = 'index').
            runs.add(
                    new LayoutRun(
                            "unsorted",
                            FlinkSuite.SYSTEM + "-unsorted",
                            "unsorted-",
                            SeedLayout.lookupDefault(options.rows()).withSorted(false),
                            withCold(noCache(false)),
                            UNSORTED_FILES,
                            "k"));
        }
        if (secondary) {
            // The protocol file itself joined on v, a column it is not sorted by: lookups by a
            // secondary key through a key index on v, against FULL joined on v (the first row).
            runs.add(
                    new LayoutRun(
                            "secondary",
                            FlinkSuite.SYSTEM + "-secondary",
                            "secondary-",
                            SeedLayout.lookupDefault(options.rows()),
                            chosen(withCold(noCache(true))),
                            1,
                            "v"));
        }
        return runs;
    }

    /** The layout names of a {@code --layout} value, {@code both} expanded; checked. */
    static Set<String> selected(String layout) {
        Set<String> names = new LinkedHashSet<>();
        for (String name : layout.toLowerCase(Locale.ROOT).split(",")) {
            String n = name.strip();
            if (!LAYOUTS.contains(n)) {
                throw new IllegalArgumentException(
                        "--layout takes "
                                + String.join(", ", LAYOUTS)
                                + " or a list; got '"
                                + layout
                                + "'");
            }
            if (n.equals("both")) {
                names.add("prepared");
                names.add("protocol");
            } else {
                names.add(n);
            }
        }
        return names;
    }

    /** Whether {@code variant} runs with the layout's key indexes deleted before each job. */
    static boolean cold(String variant) {
        return variant.endsWith(COLD);
    }

    /** The variant whose table options and hints a cold variant uses. */
    static String base(String variant) {
        return cold(variant) ? variant.substring(0, variant.length() - COLD.length()) : variant;
    }

    /** The LOOKUP hint options of a variant (cold or not), or null. */
    static String hint(String variant) {
        return HINTS.get(base(variant));
    }

    /**
     * The variants, and after the no-cache ones the same again with the key indexes deleted before
     * each job ({@link #COLD}): the first enriched row and the job's rate with the indexes' build.
     */
    private static Map<String, String> withCold(Map<String, String> variants) {
        Map<String, String> all = new LinkedHashMap<>();
        variants.forEach(
                (name, with) -> {
                    if (name.endsWith("-nocache")) {
                        all.put(name, with);
                    }
                });
        variants.forEach(
                (name, with) -> {
                    if (name.endsWith("-nocache")) {
                        all.put(name + COLD, with);
                    }
                });
        variants.forEach(all::putIfAbsent);
        return all;
    }

    /**
     * {@code -Dbench.flink.variants=async-nocache,full-cache}: only these variants (and {@code
     * sync-nocache}, the warm-up job's table), e.g. to leave out the regular join, which loads a
     * 10M-row dimension into state in every job. Without it, every variant but the {@link
     * #DECOMPOSITION} ones, which run only when named.
     */
    private static Map<String, String> chosen(Map<String, String> variants) {
        String wanted = System.getProperty("bench.flink.variants", "");
        List<String> names = wanted.isBlank() ? List.of() : List.of(wanted.split(","));
        Map<String, String> kept = new LinkedHashMap<>();
        variants.forEach(
                (name, with) -> {
                    boolean byDefault = wanted.isBlank() && !DECOMPOSITION.contains(name);
                    if (name.equals("sync-nocache") || byDefault || names.contains(name)) {
                        kept.put(name, with);
                    }
                });
        return kept;
    }

    /**
     * Variants that take Flink's async operator apart (its timeout timer, its ordered queue): run
     * only when named in {@code -Dbench.flink.variants}.
     */
    static final List<String> DECOMPOSITION =
            List.of("async-ordered-notimeout", "async-unordered", "async-unordered-notimeout");

    private static final String SYNC_NOCACHE = "'lookup.async' = 'false', 'lookup.cache' = 'NONE'";
    private static final String ASYNC_NOCACHE = "'lookup.async' = 'true', 'lookup.cache' = 'NONE'";
    private static final String FULL = "'lookup.cache' = 'FULL'";

    /**
     * LOOKUP hint options of a variant, for the join's {@code d}. The async variants ask for the
     * async function explicitly (with {@code 'lookup.async' = 'true'}, which offers it on local
     * files too): they measure the async path whatever the default.
     */
    static final Map<String, String> HINTS =
            Map.of(
                    "async-nocache",
                    "'async' = 'true'",
                    "async-partial",
                    "'async' = 'true'",
                    "async-ordered-notimeout",
                    "'async' = 'true', 'timeout' = '0 s'",
                    "async-unordered",
                    "'async' = 'true', 'output-mode' = 'allow_unordered'",
                    "async-unordered-notimeout",
                    "'async' = 'true', 'output-mode' = 'allow_unordered', 'timeout' = '0 s'");

    /** Sync and async without a cache, and with {@code full} also {@code lookup.cache = FULL}. */
    private static Map<String, String> noCache(boolean full) {
        Map<String, String> variants = new LinkedHashMap<>();
        variants.put("sync-nocache", SYNC_NOCACHE);
        variants.put("async-nocache", ASYNC_NOCACHE);
        if (full) {
            variants.put("full-cache", FULL);
        }
        return variants;
    }

    private static Map<String, String> preparedVariants() {
        Map<String, String> variants = noCache(false);
        // Flink's async operator registers a timeout timer per event and orders its output; these
        // variants turn one or both off through the LOOKUP hint (what a user can choose).
        variants.put("async-ordered-notimeout", ASYNC_NOCACHE);
        variants.put("async-unordered", ASYNC_NOCACHE);
        variants.put("async-unordered-notimeout", ASYNC_NOCACHE);
        variants.put(
                "sync-partial",
                "'lookup.async' = 'false', 'lookup.cache' = 'PARTIAL',"
                        + " 'lookup.partial-cache.max-rows' = '100000'");
        variants.put(
                "async-partial",
                "'lookup.async' = 'true', 'lookup.cache' = 'PARTIAL',"
                        + " 'lookup.partial-cache.max-rows' = '100000'");
        variants.put("full-cache", FULL);
        variants.put("in-memory-join", null);
        return variants;
    }
}
