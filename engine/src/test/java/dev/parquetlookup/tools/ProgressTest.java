package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Progress lines say nothing of a rate or a time left before they have a rate. */
class ProgressTest {

    @Test
    void aPhaseWithoutARateYetPrintsNoTimeLeft() {
        // Found by a user: "about 0 s left" printed as a phase began.
        assertThat(Progress.line("writing", 0, 0.0, 5_000_000L, 3_000_000_000L))
                .isEqualTo("writing: 0 rows (0%), 3 s");
        assertThat(Progress.line("writing", 4_096, 0.01, 300_000_000L, 3_000_000_000L))
                .isEqualTo("writing: 4,096 rows (1%), 3 s");
        assertThat(Progress.line("writing", 4_096, 0.01, 1_000_000_000L, 4_000_000_000L))
                .isEqualTo("writing: 4,096 rows (1%), 4,096 rows/s, 4 s, about 99 s left");
    }
}
