package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Delta kernel's and iceberg-core's messages read as clauses of ours (found by a user: "The
 * latest available version is 0.."): no doubled period in any version message of either format.
 */
class TableFormatMessagesTest extends TableTests {

    @Test
    void theLibrarysClosingPeriodIsDropped() {
        String clause =
                ErrorClause.of(
                        new IllegalArgumentException(
                                "Cannot time travel. The latest available version is 0."));
        assertThat(clause)
                .isEqualTo(
                        "IllegalArgumentException: Cannot time travel. The latest available"
                                + " version is 0");
        assertThat(clause + ". The version does not exist").doesNotContain("..");
        assertThat(ErrorClause.of(new IllegalStateException()))
                .isEqualTo("IllegalStateException: null");
        assertThat(ErrorClause.of(new IOException("gone. "))).isEqualTo("IOException: gone");
    }

    @Test
    void aDeltaVersionThatDoesNotExistReadsAsOneSentence() throws IOException {
        DeltaTestTable delta = DeltaTestTable.create(location(), Map.of());
        delta.append(rows("a", "eu", range(0, 10, 1)));
        assertThatThrownBy(() -> open(location(), DeltaFormat.NAME, "7"))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("version 7 ('scan.version')")
                .hasMessageContaining("latest available version is 1")
                .hasMessageNotContaining("..");
    }

    @Test
    void icebergMetadataThatCannotBeReadReadsAsOneSentence() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.append(rows("a", "eu", range(0, 10, 1)));
        long v1 = iceberg.version();
        assertThatThrownBy(() -> open(location(), IcebergFormat.NAME, "12345"))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("has no snapshot 12345")
                .hasMessageNotContaining("..");
        try (Stream<Path> files = Files.list(dir.resolve("dim/metadata"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".metadata.json")).toList()) {
                Files.writeString(p, "{ not json");
            }
        }
        assertThatThrownBy(() -> open(location(), IcebergFormat.NAME, String.valueOf(v1)))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Cannot read the metadata of the Iceberg table")
                .hasMessageNotContaining("..");
    }

    private void open(String path, String format, String scanVersion) throws IOException {
        open(
                TableConfig.builder(path)
                        .sortKey(List.of("id"))
                        .hadoopOptions(Map.of("scan.version", scanVersion))
                        .metadataCache(cache)
                        .build(),
                format);
    }
}
