package dev.parquetlookup.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads what a Flink filesystem sink committed: visible part files only. */
final class SinkFiles {

    private SinkFiles() {}

    /**
     * All lines of the committed files under {@code dir}. In-progress and pending files are hidden
     * ({@code .part-...}) and {@code _SUCCESS}-style markers start with an underscore; neither
     * holds committed rows.
     */
    static List<String> lines(Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return lines;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = file.getFileName().toString();
                if (name.startsWith(".") || name.startsWith("_")) {
                    continue;
                }
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isEmpty()) {
                        lines.add(line);
                    }
                }
            }
        }
        return lines;
    }
}
