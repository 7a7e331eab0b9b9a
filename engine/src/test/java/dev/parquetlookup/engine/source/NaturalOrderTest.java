package dev.parquetlookup.engine.source;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NaturalOrderTest {

    @Test
    void digitRunsCompareAsNumbers() {
        List<String> names =
                new ArrayList<>(
                        List.of(
                                "v10",
                                "v9",
                                "v100",
                                "v09",
                                "snapshot-2026-11-29T23",
                                "snapshot-2026-11-29T03",
                                "a",
                                "v2b",
                                "v2a"));
        names.sort(NaturalOrder.INSTANCE);
        assertThat(names)
                .containsExactly(
                        "a",
                        "snapshot-2026-11-29T03",
                        "snapshot-2026-11-29T23",
                        "v2a",
                        "v2b",
                        "v09",
                        "v9",
                        "v10",
                        "v100");
    }
}
