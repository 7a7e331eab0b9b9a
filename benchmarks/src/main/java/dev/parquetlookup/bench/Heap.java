package dev.parquetlookup.bench;

import java.lang.management.ManagementFactory;

/** Heap in use after a full collection: what a system retains once opened. */
final class Heap {

    private Heap() {}

    static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        // Two collections settle finalizers and soft references enough for a MB-level figure.
        for (int i = 0; i < 2; i++) {
            System.gc();
            used =
                    Math.min(
                            used,
                            ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
