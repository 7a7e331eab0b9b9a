package dev.parquetlookup.flink.table;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;

/**
 * A running SQL lookup join whose enrichment switches to new values after the dimension is
 * rewritten, within {@code refresh.interval} plus a margin ({@link RefreshingJoin}: an unbounded
 * datagen stream joined on a MiniCluster, results polled from the job as they come), for both
 * publishing patterns of plain files.
 */
class ParquetLookupRefreshITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster(1);

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("ver", ValueType.of(Kind.INT)),
                    ColumnSpec.required("label", ValueType.of(Kind.STRING)));

    /** The two publishing patterns of docs/refresh.md. */
    enum Publishing {
        /** (a) all-files: the file is rewritten elsewhere and renamed over the old one. */
        RENAME_INTO_PLACE("all-files"),
        /** (b) latest-success: a new snapshot directory, its _SUCCESS marker written last. */
        NEW_SNAPSHOT_DIRECTORY("latest-success");

        final String mode;

        Publishing(String mode) {
            this.mode = mode;
        }
    }

    @ParameterizedTest
    @EnumSource(Publishing.class)
    void enrichmentSwitchesToTheRewrittenValuesWithinTheInterval(Publishing publishing)
            throws Exception {
        publish(publishing, 1);
        RefreshingJoin.switchesToVersion2(
                publishing.name(),
                "'path' = '" + dir.toUri() + "', 'path.snapshot-mode' = '" + publishing.mode + "'",
                () -> publish(publishing, 2));
    }

    private void publish(Publishing publishing, int version) throws IOException {
        switch (publishing) {
            case RENAME_INTO_PLACE -> {
                Path tmp = dir.resolve(".dim.parquet.tmp");
                write(tmp, version);
                // A modification time of its own, even within the file system's clock resolution.
                Files.setLastModifiedTime(tmp, FileTime.fromMillis(1_700_000_000_000L + version));
                Files.move(
                        tmp,
                        dir.resolve("dim.parquet"),
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            }
            case NEW_SNAPSHOT_DIRECTORY -> {
                Path snapshot = Files.createDirectories(dir.resolve("v=" + version));
                write(snapshot.resolve("part-0.parquet"), version);
                Files.write(snapshot.resolve("_SUCCESS"), new byte[0]);
            }
        }
    }

    private static void write(Path file, int version) throws IOException {
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(), COLUMNS, List.of("k"), WriterOptions.defaults())) {
            for (long k = 0; k < RefreshingJoin.KEYS; k++) {
                w.write(new Object[] {k, version, (k + "/" + version).getBytes()});
            }
        }
    }
}
