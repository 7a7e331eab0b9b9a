package dev.parquetlookup.engine.table;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The background refresh of one {@link RefreshingTable}: one daemon thread named after the path
 * that runs the refresh every interval, with a fixed delay between the end of one and the start of
 * the next (a slow listing never piles up refreshes). An exception never escapes to cancel the
 * schedule. {@link #stop()} returns once the thread is gone, so a TaskManager's leak check after a
 * job stops never sees it.
 */
final class RefreshSchedule {

    private static final Logger LOG = LoggerFactory.getLogger(RefreshSchedule.class);

    private static final long STOP_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final ScheduledExecutorService scheduler;
    // awaitTermination returns while the worker is still exiting: stop() also joins it.
    @Nullable private volatile Thread thread;

    RefreshSchedule(String path, Duration interval, Runnable refresh) {
        long millis = Math.max(1, interval.toMillis());
        scheduler =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "parquet-lookup-refresh " + path);
                            t.setDaemon(true);
                            thread = t;
                            return t;
                        });
        Runnable guarded =
                () -> {
                    try {
                        refresh.run();
                    } catch (Throwable t) {
                        LOG.warn("Background refresh of {} failed unexpectedly", path, t);
                    }
                };
        scheduler.scheduleWithFixedDelay(guarded, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Cancels the schedule, interrupts a refresh in progress and waits for the thread to end. */
    void stop() {
        scheduler.shutdownNow();
        try {
            if (scheduler.awaitTermination(STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                Thread t = thread;
                if (t != null) {
                    t.join(STOP_TIMEOUT_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
