package dev.parquetlookup.e2e;

import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shaded SQL jar on its own: what it contains (merged services, relocations, the table formats,
 * licenses, no Flink or logging binding) and that it reads sorted Parquet files through Hadoop's
 * local file system in a JVM with nothing else on the class path and no {@code HADOOP_CLASSPATH}.
 */
class ShadedJarITCase {

    /** Top-level packages allowed unrelocated; anything else must live under our shaded prefix. */
    private static final List<String> ALLOWED_CLASS_PREFIXES =
            List.of(
                    "dev/parquetlookup/",
                    "org/apache/parquet/",
                    "shaded/parquet/", // parquet-jackson's own relocation
                    "org/apache/hadoop/", // Flink loads org.apache.hadoop parent-first
                    "org/xerial/snappy/", // JNI: native method names fix the package
                    "com/github/luben/zstd/", // JNI as well
                    "org/slf4j/", // the API only; Flink loads org.slf4j parent-first
                    // The table formats: catalog and FileIO classes are named in options.
                    "org/apache/iceberg/",
                    "io/delta/kernel/",
                    "io/delta/storage/");

    private static Path jar;

    @BeforeAll
    static void locateJar() {
        jar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        assertThat(jar)
                .as("the shaded SQL jar; build it with mvn -B -pl e2e-tests -am verify")
                .isRegularFile();
    }

    @Test
    void bundlesOnlyRelocatedOrAllowedClasses() throws IOException {
        Set<String> leaked = new TreeSet<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements(); ) {
                String name = e.nextElement().getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/")) {
                    continue;
                }
                if (ALLOWED_CLASS_PREFIXES.stream().noneMatch(name::startsWith)) {
                    leaked.add(name.substring(0, Math.max(0, name.lastIndexOf('/'))));
                }
            }
            assertThat(leaked).as("packages neither relocated nor allowed").isEmpty();
            assertThat(file.getEntry("org/apache/flink/table/factories/Factory.class"))
                    .as("Flink itself is provided by the cluster")
                    .isNull();
            assertThat(file.getEntry("org/apache/logging/log4j/Logger.class")).isNull();
            assertThat(file.getEntry("META-INF/services/org.slf4j.spi.SLF4JServiceProvider"))
                    .as("no SLF4J binding")
                    .isNull();
            assertThat(file.getEntry("org/slf4j/impl/StaticLoggerBinder.class")).isNull();
            assertThat(file.getEntry("com/github/benmanes/caffeine/cache/Caffeine.class")).isNull();
            assertThat(
                            file.getEntry(
                                    "dev/parquetlookup/shaded/com/github/benmanes/caffeine/cache/Caffeine.class"))
                    .as("Caffeine relocated")
                    .isNotNull();
            for (String library :
                    List.of(
                            "org/apache/avro/LogicalTypes",
                            "com/fasterxml/jackson/databind/ObjectMapper",
                            "org/apache/hc/client5/http/classic/HttpClient",
                            "org/roaringbitmap/RoaringBitmap")) {
                assertThat(file.getEntry(library + ".class")).as("%s relocated", library).isNull();
                assertThat(file.getEntry("dev/parquetlookup/shaded/" + library + ".class"))
                        .as("%s bundled", library)
                        .isNotNull();
            }
            assertThat(file.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("dev.parquetlookup.tools.Main");
            for (String legal :
                    List.of(
                            "META-INF/LICENSE",
                            "META-INF/NOTICE",
                            "META-INF/DEPENDENCIES",
                            "META-INF/licenses/LICENSE.zstd-jni")) {
                assertThat(file.getEntry(legal)).as(legal).isNotNull();
            }
        }
    }

    @Test
    void mergesServiceFiles() throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            assertThat(services(file, "org.apache.hadoop.fs.FileSystem"))
                    .contains("org.apache.hadoop.fs.LocalFileSystem");
            assertThat(services(file, "org.apache.flink.table.factories.Factory"))
                    .containsExactly(
                            "dev.parquetlookup.flink.table.ParquetLookupDynamicTableFactory");
            assertThat(services(file, "org.apache.hadoop.io.compress.CompressionCodec"))
                    .contains("org.apache.hadoop.io.compress.GzipCodec");
            assertThat(services(file, "dev.parquetlookup.engine.source.TableFormat"))
                    .as("the table formats, found through ServiceLoader")
                    .containsExactlyInAnyOrder(
                            "dev.parquetlookup.formats.DeltaFormat",
                            "dev.parquetlookup.formats.IcebergFormat");
            // Relocated with their libraries: the service file's name and its lines.
            assertThat(
                            services(
                                    file,
                                    "dev.parquetlookup.shaded.com.fasterxml.jackson.core.JsonFactory"))
                    .containsExactly(
                            "dev.parquetlookup.shaded.com.fasterxml.jackson.core.JsonFactory");
            assertThat(file.getEntry("META-INF/services/org.apache.avro.SchemaFormatterFactory"))
                    .isNull();
            assertThat(
                            services(
                                    file,
                                    "dev.parquetlookup.shaded.org.apache.avro.SchemaFormatterFactory"))
                    .isNotEmpty()
                    .allMatch(l -> l.startsWith("dev.parquetlookup.shaded.org.apache.avro."));
            // Every service our own module declares survives the merge (the Flink table
            // Factory once the SQL connector registers one).
            Path own = Path.of("../connector/src/main/resources/META-INF/services");
            if (Files.isDirectory(own)) {
                try (var files = Files.list(own)) {
                    for (Path service : files.toList()) {
                        List<String> declared = serviceLines(Files.readString(service));
                        assertThat(services(file, service.getFileName().toString()))
                                .as(service.getFileName().toString())
                                .containsAll(declared);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = WriterOptions.Codec.class,
            names = {"SNAPPY", "ZSTD", "LZ4_RAW", "GZIP", "UNCOMPRESSED"})
    @Timeout(120)
    void looksUpInAJvmWithOnlyTheShadedJar(WriterOptions.Codec codec, @TempDir Path dir)
            throws Exception {
        long customers = 5_000;
        DimensionFiles.write(dir.resolve("customers"), customers, 3, codec);
        List<Long> keys = List.of(0L, 1L, 2L, 4_096L, 5_000L, 9_998L, 9_999L, 10_000L);

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1"); // short-lived: see ShadedJarCommandLineITCase
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(jar + java.io.File.pathSeparator + probeClassesDir());
        command.add(ShadedJarProbe.class.getName());
        command.add(dir.resolve("customers").toUri().toString());
        keys.forEach(k -> command.add(Long.toString(k)));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("HADOOP_CLASSPATH");
        builder.environment().remove("HADOOP_HOME");
        builder.environment().remove("CLASSPATH");
        Process p = builder.start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("probe exit code; output:\n%s", output).isZero();

        List<String> expected =
                keys.stream()
                        .map(
                                k ->
                                        k
                                                + "="
                                                + DimensionFiles.customer(k, customers)
                                                        .map(c -> c.name() + "," + c.tier() + ";")
                                                        .orElse("-"))
                        .toList();
        List<String> lines =
                output.lines().filter(l -> l.matches("^\\d+=.*")).collect(Collectors.toList());
        assertThat(lines).as("probe output:\n%s", output).containsExactlyElementsOf(expected);
    }

    @Test
    @Timeout(120)
    void commandLineRunsWithJavaDashJar(@TempDir Path dir) throws Exception {
        Path customers = dir.resolve("customers");
        DimensionFiles.write(customers, 3_000, 2, WriterOptions.Codec.ZSTD);

        String got = javaDashJar("get", customers.toString(), "--value", "4242");
        assertThat(got.lines().toList())
                .as("get output:\n%s", got)
                .contains("id\tname\ttier", "4242\tcustomer-4242\t" + (4242 % 7));
        // A miss (exit status 1) and the other exit codes: ShadedJarCommandLineITCase.

        String inspect = javaDashJar("inspect", customers.toUri().toString());
        assertThat(inspect)
                .as("inspect output:\n%s", inspect)
                .contains("2 file(s)", "3,000 rows", "part-000.parquet", "part-001.parquet");
    }

    /** {@code java -jar <the jar> args...} with nothing else installed; returns its output. */
    private static String javaDashJar(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("HADOOP_CLASSPATH");
        builder.environment().remove("HADOOP_HOME");
        builder.environment().remove("CLASSPATH");
        Process p = builder.start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as("java -jar %s exit code; output:%n%s", List.of(args), output)
                .isZero();
        return output;
    }

    /** The folder holding the compiled probe (target/test-classes). */
    private static String probeClassesDir() throws Exception {
        return Path.of(
                        ShadedJarProbe.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI())
                .toString();
    }

    private static List<String> services(JarFile file, String service) throws IOException {
        JarEntry entry = file.getJarEntry("META-INF/services/" + service);
        assertThat(entry).as("META-INF/services/" + service).isNotNull();
        try (InputStream in = file.getInputStream(entry)) {
            return serviceLines(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static List<String> serviceLines(String text) {
        return text.lines()
                .map(String::trim)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
    }
}
