package dev.parquetlookup.io;

import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DaemonThreads}: a JVM-wide pool started while a job's class loader is the context class
 * loader (as Flink sets it in a task) does not keep that loader, which Flink closes at the job's
 * end; a table's pool keeps it. An idle-ending pool runs up to its size at once and lets its
 * threads go when idle.
 */
class DaemonThreadsTest {

    @Test
    void jvmWideThreadsTakeTheEnginesLoaderAndTableThreadsTheirCreators() throws Exception {
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader job = new URLClassLoader(new URL[0], before)) {
            Thread.currentThread().setContextClassLoader(job);
            ExecutorService shared = Executors.newSingleThreadExecutor(DaemonThreads.jvmWide("t"));
            ExecutorService table = Executors.newSingleThreadExecutor(DaemonThreads.perTable("u"));
            try {
                Thread sharedThread =
                        shared.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
                Thread tableThread = table.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
                assertThat(sharedThread.getContextClassLoader())
                        .isSameAs(DaemonThreads.class.getClassLoader())
                        .isNotSameAs(job);
                assertThat(sharedThread.isDaemon()).isTrue();
                assertThat(sharedThread.getName()).isEqualTo("t-1");
                assertThat(tableThread.getContextClassLoader()).isSameAs(job);
                assertThat(tableThread.isDaemon()).isTrue();
                assertThat(tableThread.getName()).isEqualTo("u-1");
            } finally {
                shared.shutdownNow();
                table.shutdownNow();
            }
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
    }

    @Test
    void anIdleEndingPoolRunsItsSizeAtOnceAndHoldsNoThreadWhenIdle() throws Exception {
        ThreadPoolExecutor pool = DaemonThreads.idleEndingPool(2, DaemonThreads.jvmWide("p"));
        try {
            assertThat(pool.allowsCoreThreadTimeOut()).isTrue();
            assertThat(pool.getKeepAliveTime(TimeUnit.SECONDS))
                    .isEqualTo(DaemonThreads.IDLE_SECONDS);
            assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
            CountDownLatch both = new CountDownLatch(2);
            Future<String> a = pool.submit(() -> meet(both));
            Future<String> b = pool.submit(() -> meet(both));
            // Each task waits for the other: they finish only when run on two threads at once.
            assertThat(a.get(30, TimeUnit.SECONDS)).isNotEqualTo(b.get(30, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
    }

    private static String meet(CountDownLatch both) throws InterruptedException {
        both.countDown();
        assertThat(both.await(30, TimeUnit.SECONDS)).isTrue();
        return Thread.currentThread().getName();
    }
}
