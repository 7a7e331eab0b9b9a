package dev.parquetlookup.engine.index;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the parts of one index build at once (the reads of its ranges of row groups, the merges of
 * its ranges of codes): all but the first offered to a pool of helper threads, each run by
 * whichever thread claims it first, so that the building thread runs the parts no helper took up
 * and never waits for the pool (a busy or shut pool only makes the build serial). A part that fails
 * stops the others ({@link #stopped}, checked between their steps); the build then fails with that
 * failure once no part is running, so its caller may delete what they wrote.
 *
 * <p>Example: {@code long rows = BuildTasks.run(List.of(() -> read(0), () -> read(1)), pool)}
 * returns the sum of both reads.
 */
final class BuildTasks {

    /** One part of a build: returns a count (rows read, entries merged). */
    interface Task {
        long run(BuildTasks tasks) throws IOException;
    }

    private final AtomicBoolean failed = new AtomicBoolean();

    private BuildTasks() {}

    /** Throws if another part of the build failed: this part has no reason to go on. */
    void stopped() throws IOException {
        if (failed.get()) {
            throw new Stopped();
        }
    }

    /** Runs every task (see the class comment) and returns the sum of their counts. */
    static long run(List<Task> tasks, Executor helpers) throws IOException {
        BuildTasks build = new BuildTasks();
        List<Part> parts = new ArrayList<>(tasks.size());
        for (Task task : tasks) {
            parts.add(build.new Part(task));
        }
        for (int p = 1; p < parts.size(); p++) {
            try {
                helpers.execute(parts.get(p));
            } catch (RejectedExecutionException e) {
                // run below, on this thread
            }
        }
        for (Part part : parts) {
            part.run(); // a no-op for a part a helper claimed
        }
        long sum = 0;
        Throwable failure = null;
        for (Part part : parts) {
            try {
                sum += part.count.join();
            } catch (CompletionException | CancellationException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                if (failure == null || failure instanceof Stopped) {
                    failure = cause; // the first failure that is not a stop
                }
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return sum;
    }

    /** One task, run once by whichever thread claims it first. */
    private final class Part implements Runnable {
        final AtomicBoolean claimed = new AtomicBoolean();
        final CompletableFuture<Long> count = new CompletableFuture<>();
        final Task task;

        Part(Task task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                count.complete(task.run(BuildTasks.this));
            } catch (Throwable t) {
                failed.set(true);
                count.completeExceptionally(t);
            }
        }
    }

    /** A part stopped because another one failed (the other's failure is the build's). */
    private static final class Stopped extends IOException {
        private static final long serialVersionUID = 1L;

        Stopped() {
            super("stopped: another part of the build failed");
        }
    }
}
