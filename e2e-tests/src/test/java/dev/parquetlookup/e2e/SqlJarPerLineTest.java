package dev.parquetlookup.e2e;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two SQL jars (Flink 2.x: {@code flink-sql-connector-parquet-lookup}, Flink 1.20: {@code
 * flink-sql-connector-parquet-lookup-1.20}) bundle the same libraries in the same versions and
 * differ only in the connector's Flink shim, so {@link ShadedJarITCase}'s checks of the 2.x jar
 * hold for the 1.20 jar too. Dependency mediation against a different Flink could otherwise swap a
 * bundled library for the one Flink pins (Flink 1.20's commons-lang3 3.12.0 did).
 */
class SqlJarPerLineTest {

    private static final String SHIM_CLASS = "dev/parquetlookup/flink/shim/LookupShuffle.class";

    /** What this test compares separately (the glue) or lets differ (the NOTICE's title). */
    private static boolean lineSpecific(String name) {
        return name.startsWith("dev/parquetlookup/flink/")
                || name.equals("META-INF/NOTICE")
                || name.equals("META-INF/MANIFEST.MF");
    }

    @Test
    void bothLinesBundleTheSameLibraries() throws IOException {
        Map<String, Long> jar2 =
                entries(Path.of(FlinkCluster.requiredProperty("e2e.connector2x.jar")));
        Map<String, Long> jar120 =
                entries(Path.of(FlinkCluster.requiredProperty("e2e.connector120.jar")));
        assertThat(jar2).as("entries of the 2.x jar").hasSizeGreaterThan(1_000);
        assertThat(jar120)
                .as("entries (name -> size) of the 1.20 jar outside dev/parquetlookup/flink/")
                .containsExactlyInAnyOrderEntriesOf(jar2);
    }

    /**
     * The glue is one jar compiled once (connector/), so its classes are the same in both jars;
     * only the shim (dev/parquetlookup/flink/shim/: connector-flink-2 or connector-flink-1.20)
     * differs, with the same class names.
     */
    @Test
    void bothLinesHoldTheSameGlueButTheShim() throws IOException {
        Map<String, Long> glue2 =
                glue(Path.of(FlinkCluster.requiredProperty("e2e.connector2x.jar")));
        Map<String, Long> glue120 =
                glue(Path.of(FlinkCluster.requiredProperty("e2e.connector120.jar")));
        assertThat(glue2)
                .containsKeys(
                        "dev/parquetlookup/flink/lookup/KeyRangePartitioner.class", SHIM_CLASS);
        assertThat(glue120.keySet()).containsExactlyInAnyOrderElementsOf(glue2.keySet());
        glue2.keySet().removeIf(SqlJarPerLineTest::isShim);
        glue120.keySet().removeIf(SqlJarPerLineTest::isShim);
        assertThat(glue120)
                .as("entries (name -> size) of the 1.20 jar's glue outside the shim")
                .containsExactlyInAnyOrderEntriesOf(glue2);
    }

    private static boolean isShim(String name) {
        return name.startsWith("dev/parquetlookup/flink/shim/");
    }

    private static Map<String, Long> entries(Path jar) throws IOException {
        Map<String, Long> entries = new TreeMap<>();
        read(jar, false, entries);
        return entries;
    }

    private static Map<String, Long> glue(Path jar) throws IOException {
        Map<String, Long> entries = new TreeMap<>();
        read(jar, true, entries);
        return entries;
    }

    private static void read(Path jar, boolean glue, Map<String, Long> into) throws IOException {
        assertThat(jar)
                .as("the SQL jar; build it with mvn -B -pl e2e-tests -am verify")
                .isRegularFile();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements(); ) {
                JarEntry entry = e.nextElement();
                String name = entry.getName();
                if (entry.isDirectory()) {
                    continue;
                }
                boolean isGlue = name.startsWith("dev/parquetlookup/flink/");
                if (glue ? isGlue : !lineSpecific(name)) {
                    into.put(name, entry.getSize());
                }
            }
        }
    }
}
