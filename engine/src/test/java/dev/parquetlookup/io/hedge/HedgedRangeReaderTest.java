package dev.parquetlookup.io.hedge;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.TransientReadException;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.Test;

import java.io.FileNotFoundException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link HedgedRangeReader} against a reader whose answers the test gives by hand and a timer and
 * clock the test moves by hand: nothing depends on the real clock.
 */
class HedgedRangeReaderTest {

    private static final FileId FILE = new FileId("s3a://b/f.parquet", 1 << 20, 1L, "\"e\"", null);
    private static final FileRange KEY_PAGE = new FileRange(0, 100);
    private static final FileRange VALUE_PAGE = new FileRange(4096, 200);

    /** One request the hedged reader sent, answered by the test. */
    private record Request(FileRange range, CompletableFuture<byte[][]> answer) {
        void answer(byte fill) {
            byte[] bytes = new byte[range.length()];
            java.util.Arrays.fill(bytes, fill);
            answer.complete(new byte[][] {bytes});
        }
    }

    /** A request's answer that tells when the request went on the wire, as the client's do. */
    private static final class OnWire extends CompletableFuture<byte[][]>
            implements AsyncRangeReader.Sent {
        volatile long sentNanos = NOT_YET;

        @Override
        public long sentNanos() {
            return sentNanos;
        }
    }

    private static final class HandReader implements AsyncRangeReader {
        final List<Request> requests = new ArrayList<>();
        boolean closed;

        /** Whether the answers tell when their request was written ({@link OnWire}). */
        boolean tellsSent;

        /** Run once inside the next request: another caller's GET starting meanwhile. */
        Runnable onNextRequest;

        @Override
        public synchronized CompletableFuture<byte[][]> readAll(
                FileId file, List<FileRange> ranges) {
            assertThat(ranges).as("one request per range").hasSize(1);
            Request r =
                    new Request(
                            ranges.get(0), tellsSent ? new OnWire() : new CompletableFuture<>());
            requests.add(r);
            Runnable meanwhile = onNextRequest;
            onNextRequest = null;
            if (meanwhile != null) {
                meanwhile.run();
            }
            return r.answer();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Timer tasks and the clock, both moved by the test. */
    private static final class HandTimer implements HedgedRangeReader.Timer {
        final List<Runnable> tasks = new ArrayList<>();
        final List<Long> due = new ArrayList<>();
        long now;
        private int fired;

        @Override
        public void schedule(Runnable task, long delayNanos) {
            tasks.add(task);
            due.add(now + delayNanos);
        }

        /**
         * Moves the clock to the last time a task set so far is due, then runs those tasks, as if
         * their delays passed (tasks they set wait for the next call).
         */
        void fireAll() {
            int n = tasks.size();
            for (int i = fired; i < n; i++) {
                now = Math.max(now, due.get(i));
            }
            for (; fired < n; fired++) {
                tasks.get(fired).run();
            }
        }
    }

    private final HandReader store = new HandReader();
    private final HandTimer timer = new HandTimer();
    private final HedgeStatistics stats = new HedgeStatistics();

    private HedgedRangeReader reader(double budget) {
        return new HedgedRangeReader(
                store,
                new HedgedRangeReader.Settings(
                        99, 2, Duration.ofMillis(20), Duration.ofSeconds(1), budget),
                stats,
                timer,
                () -> timer.now);
    }

    /** Earns the budget of {@code n} hedges: 20 GETs answered at once per token at 5%. */
    private static void earn(HedgedRangeReader reader, HandReader store, int gets) {
        for (int i = 0; i < gets; i++) {
            CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
            store.requests.get(store.requests.size() - 1).answer((byte) 1);
            assertThat(read).isCompleted();
        }
    }

    @Test
    void aLateGetIsSentAgainAndTheFirstAnswerWinsTheOtherCancelled() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        assertThat(store.requests).hasSize(before + 1);
        timer.fireAll(); // the delay passed without an answer
        assertThat(store.requests).as("the hedge").hasSize(before + 2);
        Request first = store.requests.get(before);
        Request hedge = store.requests.get(before + 1);
        assertThat(hedge.range()).isEqualTo(KEY_PAGE);
        hedge.answer((byte) 7);
        assertThat(read.get()[0]).hasSize(100).containsOnly(7);
        assertThat(first.answer()).as("the late request is aborted").isCancelled();
        first.answer((byte) 9); // too late, ignored
        assertThat(read.get()[0]).containsOnly(7);
        assertThat(stats.gets()).isEqualTo(21);
        assertThat(stats.hedgesSent()).isEqualTo(1);
        assertThat(stats.hedgesWon()).isEqualTo(1);
        assertThat(stats.hedgesOverBudget()).isZero();
    }

    @Test
    void aGetWaitingBehindTheClientsOwnIsNotLateAndOnceOnTheWireForTheDelayIsHedged()
            throws Exception {
        store.tellsSent = true;
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        OnWire first = (OnWire) store.requests.get(before).answer();
        for (int i = 0; i < 5; i++) {
            timer.fireAll(); // the delay and ticks after it pass: the request is not written yet
        }
        assertThat(timer.now).isGreaterThan(reader.delay().toNanos());
        assertThat(store.requests)
                .as("no hedge while the GET waits behind the client's own requests")
                .hasSize(before + 1);
        first.sentNanos = timer.now; // written now; the server holds its answer
        timer.fireAll(); // a tick later: on the wire for less than the delay
        assertThat(store.requests).hasSize(before + 1);
        timer.fireAll(); // the delay after it was written
        assertThat(timer.now - first.sentNanos).isEqualTo(reader.delay().toNanos());
        assertThat(store.requests).as("the held answer's hedge").hasSize(before + 2);
        Request hedge = store.requests.get(before + 1);
        ((OnWire) hedge.answer()).sentNanos = timer.now;
        hedge.answer((byte) 7);
        assertThat(read.get()[0]).containsOnly(7);
        assertThat(first).isCancelled();
        assertThat(stats.hedgesSent()).isEqualTo(1);
        assertThat(stats.hedgesWon()).isEqualTo(1);
    }

    @Test
    void theDelayIsLearntFromTheTimeOnTheWire() {
        store.tellsSent = true;
        HedgedRangeReader reader = reader(0.05);
        for (int i = 0; i < RecentLatencies.MIN_SAMPLES; i++) {
            CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
            Request r = store.requests.get(i);
            timer.now += 100_000_000; // 100 ms waiting behind the client's own requests
            ((OnWire) r.answer()).sentNanos = timer.now;
            timer.now += 5_000_000; // 5 ms on the wire
            r.answer((byte) 1);
            assertThat(read).isCompleted();
        }
        assertThat(reader.delay())
                .as("the floor: 5 ms on the wire, not the 105 ms since each GET was asked for")
                .isEqualTo(Duration.ofMillis(20));
        assertThat(stats.medianMicros()).isZero(); // not reported until the next GET
        reader.readAll(FILE, List.of(KEY_PAGE));
        assertThat(stats.medianMicros()).isEqualTo(5_000);
    }

    @Test
    void theFirstRequestAnsweringFirstCancelsTheHedgeAndCountsNoWin() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll();
        store.requests.get(before).answer((byte) 3);
        assertThat(read.get()[0]).containsOnly(3);
        assertThat(store.requests.get(before + 1).answer()).isCancelled();
        assertThat(stats.hedgesSent()).isEqualTo(1);
        assertThat(stats.hedgesWon()).isZero();
    }

    @Test
    void anAnswerInTimeDropsTheTimerAndSendsNothingMore() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 40);
        assertThat(timer.tasks)
                .as("one check for all the GETs out, not a timer per GET")
                .hasSize(1);
        timer.fireAll();
        assertThat(store.requests).hasSize(40);
        assertThat(stats.hedgesSent()).isZero();
    }

    @Test
    void aGetStartedWhileACheckRunsDoesNotStartASecondChainOfChecks() {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20); // one token
        int before = store.requests.size();
        reader.readAll(FILE, List.of(KEY_PAGE));
        List<CompletableFuture<byte[][]>> other = new ArrayList<>();
        store.onNextRequest = // inside the check that sends the hedge, a little later
                () -> {
                    timer.now += 1_000_000;
                    other.add(reader.readAll(FILE, List.of(VALUE_PAGE)));
                };
        timer.fireAll(); // the first GET is late: its hedge; the other GET starts meanwhile
        assertThat(store.requests).hasSize(before + 3);
        store.requests.get(before + 1).answer((byte) 1); // the hedge wins
        // Only the other GET is out now, late and waiting for the budget: one check per round.
        for (int round = 0; round < 5; round++) {
            int tasks = timer.tasks.size();
            timer.fireAll();
            assertThat(timer.tasks.size() - tasks)
                    .as("checks set in round %d: one chain", round)
                    .isEqualTo(1);
        }
        store.requests.get(before + 2).answer((byte) 2);
        assertThat(other.get(0)).isCompleted();
        assertThat(stats.hedgesSent()).isEqualTo(1);
    }

    @Test
    void theBudgetBoundsExtraRequestsToItsShareOfGets() {
        HedgedRangeReader reader = reader(0.05);
        List<CompletableFuture<byte[][]>> reads = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            reads.add(reader.readAll(FILE, List.of(KEY_PAGE)));
        }
        timer.fireAll(); // all 100 are late
        assertThat(stats.hedgesSent()).as("5% of 100 GETs").isEqualTo(5);
        timer.fireAll(); // the others wait for a budget no GET earns: nothing more is sent
        timer.fireAll();
        assertThat(store.requests).hasSize(105);
        assertThat(stats.hedgesOverBudget()).as("counted once answered").isZero();
        store.requests.forEach(r -> r.answer((byte) 1));
        assertThat(reads).allSatisfy(r -> assertThat(r).isCompleted());
        assertThat(stats.hedgesOverBudget())
                .as("GETs answered while they waited for the budget")
                .isEqualTo(95);
        assertThat(stats.hedgesSent()).isEqualTo(5);
    }

    @Test
    void aLateGetFindingTheBudgetSpentIsHedgedAsSoonAsGetsEarnIt() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        CompletableFuture<byte[][]> held = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll(); // late (not yet twice), and 1 GET earned 0.05 of a token
        assertThat(store.requests).as("no hedge yet").hasSize(1);
        earn(reader, store, 19); // 20 GETs: one token
        timer.fireAll(); // the next check, a tick later
        assertThat(store.requests).as("the hedge").hasSize(21);
        Request hedge = store.requests.get(20);
        assertThat(hedge.range()).isEqualTo(KEY_PAGE);
        hedge.answer((byte) 6);
        assertThat(held.get()[0]).containsOnly(6);
        assertThat(store.requests.get(0).answer()).isCancelled();
        assertThat(stats.hedgesSent()).isEqualTo(1);
        assertThat(stats.hedgesWon()).isEqualTo(1);
        assertThat(stats.hedgesOverBudget()).as("it was hedged in the end").isZero();
    }

    @Test
    void whenTheBudgetIsShortTheGetOutLongestIsHedgedFirst() {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 19);
        reader.readAll(FILE, List.of(KEY_PAGE)); // the 20th GET: one token
        reader.readAll(FILE, List.of(VALUE_PAGE)); // sent after it, as late at the check
        timer.fireAll(); // both late, one token
        assertThat(store.requests).hasSize(22);
        assertThat(store.requests.get(21).range()).as("the older GET's hedge").isEqualTo(KEY_PAGE);
        timer.fireAll(); // the younger waits for a token
        assertThat(store.requests).hasSize(22);
        assertThat(stats.hedgesSent()).isEqualTo(1);
    }

    @Test
    void aHedgeThatIsLateTooIsFollowedByOneMoreAndNoMore() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 100); // 5 tokens
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll(); // the GET is late: the first hedge
        assertThat(store.requests).hasSize(before + 2);
        timer.fireAll(); // the delay again, from the first hedge: the second
        assertThat(store.requests).hasSize(before + 3);
        timer.fireAll();
        timer.fireAll();
        assertThat(store.requests)
                .as("at most %d hedges per GET", HedgedRangeReader.MAX_HEDGES)
                .hasSize(before + 3);
        assertThat(store.requests.subList(before, before + 3))
                .extracting(Request::range)
                .containsOnly(KEY_PAGE);
        store.requests.get(before + 2).answer((byte) 8);
        assertThat(read.get()[0]).containsOnly(8);
        assertThat(store.requests.get(before).answer()).isCancelled();
        assertThat(store.requests.get(before + 1).answer()).isCancelled();
        assertThat(stats.hedgesSent()).isEqualTo(2);
        assertThat(stats.hedgesWon()).isEqualTo(1);
    }

    @Test
    void transientFailuresWaitForTheLastRequestOut() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 100);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll();
        timer.fireAll();
        assertThat(store.requests).hasSize(before + 3);
        store.requests
                .get(before + 1)
                .answer()
                .completeExceptionally(new TransientReadException("reset", null));
        store.requests
                .get(before)
                .answer()
                .completeExceptionally(new TransientReadException("HTTP 503", null));
        assertThat(read).isNotDone();
        store.requests.get(before + 2).answer((byte) 2);
        assertThat(read.get()[0]).containsOnly(2);
    }

    @Test
    void aBudgetOfZeroNeverHedges() {
        HedgedRangeReader reader = reader(0);
        for (int i = 0; i < 50; i++) {
            reader.readAll(FILE, List.of(KEY_PAGE));
        }
        timer.fireAll();
        assertThat(stats.hedgesSent()).isZero();
        assertThat(store.requests).hasSize(50);
    }

    @Test
    void onlyTheLateRangeOfAWaveIsHedged() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> wave = reader.readAll(FILE, List.of(KEY_PAGE, VALUE_PAGE));
        Request key = store.requests.get(before);
        Request value = store.requests.get(before + 1);
        key.answer((byte) 1); // in time
        timer.fireAll(); // the value page is late
        assertThat(store.requests).hasSize(before + 3);
        Request hedge = store.requests.get(before + 2);
        assertThat(hedge.range()).isEqualTo(VALUE_PAGE);
        hedge.answer((byte) 2);
        byte[][] pages = wave.get();
        assertThat(pages[0]).hasSize(100).containsOnly(1);
        assertThat(pages[1]).hasSize(200).containsOnly(2);
        assertThat(value.answer()).isCancelled();
    }

    @Test
    void aTransientFailureWaitsForTheOtherRequest() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll();
        store.requests
                .get(before)
                .answer()
                .completeExceptionally(new TransientReadException("reset", null));
        assertThat(read).isNotDone();
        store.requests.get(before + 1).answer((byte) 5);
        assertThat(read.get()[0]).containsOnly(5);
    }

    @Test
    void bothFailingFailsTheReadWithTheFirstFailure() {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll();
        TransientReadException first = new TransientReadException("HTTP 503", null);
        store.requests.get(before + 1).answer().completeExceptionally(first);
        assertThat(read).isNotDone();
        store.requests
                .get(before)
                .answer()
                .completeExceptionally(new TransientReadException("reset", null));
        assertThatThrownBy(read::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isSameAs(first)
                .satisfies(t -> assertThat(t.getSuppressed()).hasSize(1));
    }

    @Test
    void aPermanentFailureFailsAtOnceAndCancelsTheOther() {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll();
        store.requests
                .get(before)
                .answer()
                .completeExceptionally(new FileNotFoundException("gone"));
        assertThat(read).isCompletedExceptionally();
        assertThat(store.requests.get(before + 1).answer()).isCancelled();
    }

    @Test
    void aFailureBeforeTheDelayFailsAtOnceAndHedgesNothing() {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        store.requests
                .get(before)
                .answer()
                .completeExceptionally(new TransientReadException("reset", null));
        assertThat(read).isCompletedExceptionally();
        timer.fireAll();
        assertThat(store.requests).hasSize(before + 1);
    }

    @Test
    void cancellingTheReadCancelsBothRequests() {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        int before = store.requests.size();
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(KEY_PAGE));
        timer.fireAll();
        read.cancel(true);
        assertThat(store.requests.get(before).answer()).isCancelled();
        assertThat(store.requests.get(before + 1).answer()).isCancelled();
    }

    @Test
    void largeRangesAreNeitherHedgedNorTimed() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        earn(reader, store, 20);
        FileRange chunk = new FileRange(0, HedgedRangeReader.MAX_HEDGED_BYTES + 1);
        CompletableFuture<byte[][]> read = reader.readAll(FILE, List.of(chunk));
        int scheduled = timer.tasks.size();
        timer.fireAll();
        assertThat(timer.tasks).hasSize(scheduled);
        assertThat(stats.hedgesSent()).isZero();
        store.requests.get(store.requests.size() - 1).answer((byte) 4);
        assertThat(read.get()[0]).hasSize(chunk.length());
    }

    @Test
    void theOptionTurnsItOffAndTheDefaultsTurnItOn() {
        Configuration off = new Configuration(false);
        off.setBoolean(HedgedRangeReader.ENABLED, false);
        assertThat(HedgedRangeReader.around(store, off)).isSameAs(store);
        AsyncRangeReader on = HedgedRangeReader.around(store, new Configuration(false));
        assertThat(on).isInstanceOf(HedgedRangeReader.class);
        assertThat(((HedgedRangeReader) on).delay())
                .as("the ceiling until enough GETs were answered")
                .isEqualTo(Duration.ofSeconds(1));
        on.close();
        assertThat(store.closed).isTrue();
    }

    @Test
    void settingsAreReadAndChecked() {
        Configuration conf = new Configuration(false);
        conf.set(HedgedRangeReader.PERCENTILE, "95");
        conf.set(HedgedRangeReader.MIN_DELAY, "5ms");
        conf.set(HedgedRangeReader.MAX_DELAY, "2s");
        conf.set(HedgedRangeReader.BUDGET, "0.1");
        conf.set(HedgedRangeReader.MEDIAN_MULTIPLE, "3");
        assertThat(HedgedRangeReader.Settings.of(conf))
                .isEqualTo(
                        new HedgedRangeReader.Settings(
                                95, 3, Duration.ofMillis(5), Duration.ofSeconds(2), 0.1));
        assertThat(HedgedRangeReader.Settings.of(new Configuration(false)))
                .isEqualTo(HedgedRangeReader.Settings.defaults());
        conf.set(HedgedRangeReader.MEDIAN_MULTIPLE, "0.5");
        assertThatThrownBy(() -> HedgedRangeReader.Settings.of(conf))
                .hasMessageContaining(HedgedRangeReader.MEDIAN_MULTIPLE);
        conf.set(HedgedRangeReader.MEDIAN_MULTIPLE, "2");
        conf.set(HedgedRangeReader.BUDGET, "2");
        assertThatThrownBy(() -> HedgedRangeReader.Settings.of(conf))
                .hasMessageContaining(HedgedRangeReader.BUDGET);
        conf.set(HedgedRangeReader.BUDGET, "0.05");
        conf.set(HedgedRangeReader.MIN_DELAY, "3s");
        assertThatThrownBy(() -> HedgedRangeReader.Settings.of(conf)).hasMessageContaining("floor");
    }

    @Test
    void theDelayIsTheWindowsPercentileBetweenFloorAndCeiling() {
        RecentLatencies l = new RecentLatencies(99, 2, 20_000_000, 1_000_000_000);
        assertThat(l.delayNanos()).isEqualTo(1_000_000_000);
        // 1,016 of 1,024 answers in 30 ms, 8 held 5 s: the 99th percentile is 30 ms.
        for (int i = 0; i < 1024; i++) {
            l.record(i % 128 == 0 ? 5_000_000_000L : 30_000_000L);
        }
        assertThat(l.delayNanos()).isEqualTo(30_000_000);
        for (int i = 0; i < 1024; i++) {
            l.record(1_000_000); // a fast store: the floor
        }
        assertThat(l.delayNanos()).isEqualTo(20_000_000);
        for (int i = 0; i < 1024; i++) {
            l.record(3_000_000_000L); // everything slow: the ceiling
        }
        assertThat(l.delayNanos()).isEqualTo(1_000_000_000);
    }

    @Test
    void theDelayIsAtMostTheMultipleOfTheMedian() {
        RecentLatencies l = new RecentLatencies(99, 2, 20_000_000, 1_000_000_000);
        // A loaded client: median 40 ms, a tenth of the answers at 300 ms (the 99th percentile).
        for (int i = 0; i < 1024; i++) {
            l.record(i % 10 == 0 ? 300_000_000L : 40_000_000L);
        }
        assertThat(l.medianNanos()).isEqualTo(40_000_000);
        assertThat(l.delayNanos()).as("2x the median").isEqualTo(80_000_000);
        RecentLatencies wide = new RecentLatencies(99, 10, 20_000_000, 1_000_000_000);
        for (int i = 0; i < 1024; i++) {
            wide.record(i % 10 == 0 ? 300_000_000L : 40_000_000L);
        }
        assertThat(wide.delayNanos()).as("the percentile, below 10x").isEqualTo(300_000_000);
    }

    @Test
    void aBurstOfLateGetsIsHedgedUpToTheSavedTokensNotMore() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        // Twice what the bucket keeps is earned: it keeps BURST_TOKENS.
        earn(reader, store, 20 * 2 * HedgedRangeReader.BURST_TOKENS);
        timer.fireAll(); // the checks set while earning find nothing late
        int sent = store.requests.size();
        long stall = timer.now;
        List<CompletableFuture<byte[][]>> reads = new ArrayList<>();
        int late = HedgedRangeReader.BURST_TOKENS + 20;
        for (int i = 0; i < late; i++) {
            reads.add(reader.readAll(FILE, List.of(KEY_PAGE))); // a stall: none answered
        }
        timer.fireAll(); // late after one delay, not held long enough to borrow
        assertThat(stats.hedgesSent())
                .as(
                        "a burst of late GETs gets the saved tokens, %d",
                        HedgedRangeReader.BURST_TOKENS)
                .isEqualTo(HedgedRangeReader.BURST_TOKENS);
        timer.now = stall + 2 * reader.delay().toNanos();
        timer.fireAll(); // held twice the delay: the rest may borrow, up to the bound
        int bound = HedgedRangeReader.BURST_TOKENS + HedgedRangeReader.BORROW_TOKENS;
        assertThat(stats.hedgesSent()).isEqualTo(bound);
        timer.fireAll();
        assertThat(stats.hedgesSent()).as("nothing beyond the burst and the debt").isEqualTo(bound);
        assertThat(store.requests).hasSize(sent + late + bound);
        store.requests.forEach(r -> r.answer((byte) 1));
        assertThat(reads).allSatisfy(r -> assertThat(r).isCompleted());
    }

    @Test
    void aGetHeldTwiceTheDelayBorrowsWhenNoGetsEarnTheBudget() throws Exception {
        HedgedRangeReader reader = reader(0.05);
        List<CompletableFuture<byte[][]>> reads = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            reads.add(reader.readAll(FILE, List.of(KEY_PAGE))); // 0.6 of a token earned
        }
        timer.fireAll(); // late after one delay (1 s): the budget has no token
        timer.fireAll();
        assertThat(stats.hedgesSent()).isZero();
        // No GET is sent meanwhile (an ordered output waiting for these): nothing is earned.
        timer.now = 2 * reader.delay().toNanos();
        timer.fireAll();
        assertThat(stats.hedgesSent())
                .as(
                        "held twice the delay: 0.6 earned plus at most %d borrowed",
                        HedgedRangeReader.BORROW_TOKENS)
                .isEqualTo(10);
        assertThat(store.requests).hasSize(22);
        timer.fireAll();
        assertThat(stats.hedgesSent()).as("the debt is bounded").isEqualTo(10);
        // The GETs after repay the debt before anything else is hedged.
        earn(reader, store, 200);
        assertThat(stats.hedgesSent()).isEqualTo(10);
        store.requests.forEach(r -> r.answer((byte) 1));
        assertThat(reads).allSatisfy(r -> assertThat(r).isCompleted());
    }
}
