package dev.parquetlookup;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The docs index lists every page, and links between pages point at files that exist. */
class DocsIndexTest {

    private static final Path DOCS = Path.of("../docs");

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#:]+\\.md)(#[^)]*)?\\)");

    private static List<Path> pages() throws IOException {
        try (Stream<Path> s = Files.list(DOCS)) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    @Test
    void theIndexListsEveryPage() throws IOException {
        String index = Files.readString(DOCS.resolve("README.md"));
        for (Path page : pages()) {
            String name = page.getFileName().toString();
            if (!name.equals("README.md")) {
                assertThat(index).as("docs/README.md lists %s", name).contains("](" + name + ")");
            }
        }
    }

    @Test
    void linksBetweenPagesResolve() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            Matcher m = LINK.matcher(Files.readString(page));
            while (m.find()) {
                if (!Files.exists(page.resolveSibling(m.group(1)))) {
                    broken.add(page.getFileName() + " -> " + m.group(1));
                }
            }
        }
        assertThat(broken).isEmpty();
    }
}
