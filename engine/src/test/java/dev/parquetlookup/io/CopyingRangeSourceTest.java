package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link CopyingRangeSource} serves every whole-range read through its own {@code readFully}:
 * none reaches the source below it.
 */
class CopyingRangeSourceTest {

    @Test
    void readsOfWholeRangesGoThroughReadFully() throws Exception {
        RangeSource below =
                (RangeSource)
                        Proxy.newProxyInstance(
                                RangeSource.class.getClassLoader(),
                                new Class<?>[] {RangeSource.class},
                                (proxy, method, args) -> {
                                    throw new AssertionError("reached the source: " + method);
                                });
        List<Long> served = new ArrayList<>();
        RangeSource copying =
                new CopyingRangeSource(below) {
                    @Override
                    public void readFully(long position, byte[] buffer, int offset, int length) {
                        served.add(position);
                        for (int i = 0; i < length; i++) {
                            buffer[offset + i] = (byte) (position + i);
                        }
                    }
                };

        assertThat(copying.read(new FileRange(10, 3))).containsExactly(10, 11, 12);
        byte second = copying.readWith(20, 2, b -> b.get(1));
        assertThat(second).isEqualTo((byte) 21);
        byte[][] all = copying.readAll(List.of(new FileRange(30, 1), new FileRange(40, 1)));
        assertThat(all[0]).containsExactly(30);
        assertThat(all[1]).containsExactly(40);
        assertThat(served).containsExactly(10L, 20L, 30L, 40L);
    }
}
