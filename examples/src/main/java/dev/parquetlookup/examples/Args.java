package dev.parquetlookup.examples;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The examples' command line: {@code --name value} pairs, counts with an optional {@code k} or
 * {@code m} suffix. Example: {@code Args.parse(new String[] {"--orders", "200k"}, Set.of("orders"))
 * .count("orders", 1)} is 200,000.
 */
final class Args {

    private final Map<String, String> values;

    private Args(Map<String, String> values) {
        this.values = values;
    }

    static Args parse(String[] args, Set<String> names) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg.startsWith("--") ? arg.substring(2) : null;
            if (name == null || !names.contains(name) || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "Unexpected argument '"
                                + arg
                                + "'. Options: "
                                + names.stream().sorted().map(n -> "--" + n + " VALUE").toList());
            }
            values.put(name, args[++i]);
        }
        return new Args(values);
    }

    long count(String name, long defaultValue) {
        String value = values.get(name);
        return value == null ? defaultValue : parseCount(value);
    }

    Path path(String name, Path defaultValue) {
        String value = values.get(name);
        return value == null ? defaultValue : Path.of(value);
    }

    /** {@code "200000"}, {@code "200k"} or {@code "1m"}. */
    static long parseCount(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "").replace(",", "");
        long factor = 1;
        if (t.endsWith("k")) {
            factor = 1_000;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            factor = 1_000_000;
            t = t.substring(0, t.length() - 1);
        }
        try {
            long n = Long.parseLong(t) * factor;
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a count (e.g. 200000, 200k, 1m)", e);
        }
    }
}
