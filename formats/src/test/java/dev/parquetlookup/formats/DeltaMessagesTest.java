package dev.parquetlookup.formats;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The Delta kernel's messages read as clauses of ours (found by a user: "version is 0.."). */
class DeltaMessagesTest {

    @Test
    void theKernelsClosingPeriodIsDropped() {
        String clause =
                DeltaSnapshotSource.clause(
                        new IllegalArgumentException(
                                "Cannot time travel. The latest available version is 0."));
        assertThat(clause)
                .isEqualTo(
                        "IllegalArgumentException: Cannot time travel. The latest available"
                                + " version is 0");
        assertThat(clause + ". The version does not exist").doesNotContain("..");
        assertThat(DeltaSnapshotSource.clause(new IllegalStateException()))
                .isEqualTo("IllegalStateException: null");
    }
}
