package dev.parquetlookup.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Files of the {@code paimon} suite: the size of Paimon's local lookup store while a job runs, of
 * its table on disk, its data files, and clearing the suite's folders between runs. Files may
 * vanish while they are walked (Paimon deletes its store when a job ends): what was seen counts.
 */
final class PaimonFiles {

    private PaimonFiles() {}

    /** Bytes under {@code dir/lookup-*}: Paimon's local lookup store(s). */
    static long lookupStoreBytes(Path dir) {
        long total = 0;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.getFileName().toString().startsWith("lookup-")) {
                    total += treeBytes(p, x -> true);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // The store is created and deleted while we look: count what was seen.
        }
        return total;
    }

    static long treeBytes(Path dir, java.util.function.Predicate<Path> filter) {
        long total = 0;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    if (Files.isRegularFile(p) && filter.test(p)) {
                        total += Files.size(p);
                    }
                } catch (NoSuchFileException e) {
                    // deleted meanwhile
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // a directory vanished while walking
        }
        return total;
    }

    static long countFiles(Path dir, java.util.function.Predicate<Path> filter) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(filter).count();
        }
    }
}
