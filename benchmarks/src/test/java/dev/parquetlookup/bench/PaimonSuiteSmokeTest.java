package dev.parquetlookup.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the {@code paimon} suite (not part of {@code all}) at a tiny size so its code path never
 * rots: Paimon's jars beside the classes ({@code target/paimon/lib}), the child JVM, the table
 * write and compaction, both systems' joins with fingerprints, the output contract. Never timings.
 * At this size the suite runs one repetition without warm-up (8 jobs after the table's 2).
 */
class PaimonSuiteSmokeTest {

    @TempDir Path out;

    @Test
    void paimonSuiteRunsBothSystemsAndTheirAnswersAgree() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream console = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code =
                    BenchMain.run(
                            console,
                            "paimon",
                            "--rows",
                            "5000",
                            "--events",
                            "500",
                            "--out",
                            out.toString());
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(output).isZero();
        List<String> lines = output.lines().toList();
        for (String mix : List.of("uniform", "skewed")) {
            for (String system :
                    List.of(
                            PaimonSuite.OURS_SYNC,
                            PaimonSuite.OURS_ASYNC,
                            PaimonSuite.OURS_SYNC_SHUFFLE,
                            PaimonSuite.OURS_ASYNC_SHUFFLE,
                            PaimonSuite.PAIMON,
                            PaimonSuite.PAIMON_SHUFFLE)) {
                assertThat(lines)
                        .as(system + " " + mix)
                        .anyMatch(
                                l ->
                                        l.startsWith(
                                                        "RESULT suite=paimon system="
                                                                + system
                                                                + " case="
                                                                + mix
                                                                + " threads=2 ops_per_s=")
                                                && l.matches(
                                                        ".* first_row_ms=[\\d.]+ .*"
                                                                + " after_first_row_per_s=\\d+ .*"
                                                                + " disk_bytes=\\d+ .*"
                                                                + " table_bytes=\\d+ .*"));
            }
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.startsWith("NOTE fingerprint suite=paimon case=" + mix)
                                            && l.endsWith(
                                                    "agree=parquet-lookup-sync,"
                                                            + "parquet-lookup-async,"
                                                            + "parquet-lookup-sync-shuffle,"
                                                            + "parquet-lookup-async-shuffle,"
                                                            + "paimon,paimon-shuffle"));
            assertThat(lines)
                    .anyMatch(
                            l ->
                                    l.matches(
                                            "RATIO suite=paimon case="
                                                    + mix
                                                    + " threads=2 ours-sync/paimon=[\\d.]+"
                                                    + " ours-async/paimon=[\\d.]+"
                                                    + " ours-sync/paimon-shuffle=[\\d.]+ .*"
                                                    + " ours-async-shuffle/paimon-shuffle=[\\d.]+ .*"));
        }
        assertThat(lines)
                .as("Paimon's local store was sampled and its write timed")
                .anyMatch(
                        l ->
                                l.startsWith("RESULT suite=paimon system=paimon ")
                                        && l.matches(".* disk_bytes_max=\\d+ .*")
                                        && l.matches(".* write_ms=\\d+ compact_ms=\\d+ .*"));
        assertThat(lines).anyMatch(l -> l.startsWith("CONDITIONS suite=paimon rows=5000 "));
        assertThat(lines).anyMatch(l -> l.startsWith("NOTE load suite=paimon start="));
        assertThat(Files.readAllLines(out.resolve("results.csv"))).hasSize(13);
        assertThat(Files.readAllBytes(out.resolve("paimon-events.png")))
                .startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    }

    @Test
    void paimonIsASuiteOfItsOwnAndNotPartOfAll() {
        assertThat(BenchOptions.parse("paimon", "--quick").suites()).containsExactly("paimon");
        assertThat(BenchOptions.parse("all").suites()).doesNotContain("paimon");
        assertThat(PaimonSuite.events(BenchOptions.parse("paimon", "--quick"))).isEqualTo(200_000);
        assertThat(PaimonSuite.events(BenchOptions.parse("paimon", "--events", "5k")))
                .isEqualTo(5_000);
        assertThat(PaimonSuite.repetitions(BenchOptions.parse("paimon", "--quick"))).isEqualTo(3);
        assertThat(PaimonSuite.repetitions(BenchOptions.parse("paimon", "--rows", "5000")))
                .as("a smoke size: one repetition, no warm-up")
                .isEqualTo(1);
    }
}
