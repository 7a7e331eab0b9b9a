package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FaultInjectingRangeSourceTest {

    @Test
    void failsExactlyTheChosenCallsAndPassesTheOthersUnchanged() throws IOException {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failCall(2, () -> new SocketException("reset"))
                        .failCalls(4, 5, () -> new IOException("Status Code: 503"));
        RangeSource source = new FaultInjectingRangeSource(BytesRangeSource.counting(256), plan);

        List<Integer> failed = new ArrayList<>();
        for (int call = 1; call <= 7; call++) {
            try {
                byte[] read = source.read(new FileRange(call, 3));
                assertThat(read).containsExactly(call, call + 1, call + 2);
            } catch (IOException e) {
                failed.add(call);
                assertThat(e.getSuppressed()[0])
                        .hasMessageContaining("injected failure of call " + call)
                        .hasMessageContaining("3 bytes at " + call);
            }
        }
        assertThat(failed).containsExactly(2, 4, 5);
        assertThat(plan.calls()).isEqualTo(7);
        assertThat(plan.injected()).isEqualTo(3);
    }

    @Test
    void anOutageLastsUntilHealed() throws IOException {
        FaultInjectingRangeSource.Plan plan = FaultInjectingRangeSource.plan();
        RangeSource a = new FaultInjectingRangeSource(BytesRangeSource.counting(16), plan);
        RangeSource b = new FaultInjectingRangeSource(BytesRangeSource.counting(16), plan);
        plan.failAll(() -> new SocketException("down"));
        for (RangeSource s : List.of(a, b)) {
            try {
                s.readAll(List.of(new FileRange(0, 1)));
                throw new AssertionError("read during the outage succeeded");
            } catch (SocketException expected) {
                assertThat(expected).hasMessage("down");
            }
        }
        plan.heal();
        assertThat(a.read(new FileRange(3, 1))).containsExactly(3);
        assertThat(plan.calls()).isEqualTo(3);
        assertThat(plan.injected()).isEqualTo(2);
    }
}
