package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line speaks of its flags, not of the SQL table's options. */
class FlagTermsTest {

    @Test
    void sqlOptionsReadAsFlags() {
        assertThat(
                        Main.inFlagTerms(
                                "Path /t is not a Delta table. Point 'path' at the table's root,"
                                        + " or use 'format' = 'files' for a directory."))
                .isEqualTo(
                        "Path /t is not a Delta table. Point 'path' at the table's root, or use"
                                + " --format files for a directory.");
        assertThat(
                        Main.inFlagTerms(
                                "Read it as a table: 'format' = 'delta' (command line: --format"
                                        + " delta)."))
                .isEqualTo("Read it as a table: --format delta.");
        assertThat(Main.inFlagTerms("Path /x does not exist. Check the table's 'path'."))
                .isEqualTo("Path /x does not exist. Check PATH.");
        assertThat(Main.inFlagTerms("give the key with the 'sort-key' option"))
                .isEqualTo("give the key with --key");
    }
}
