package dev.parquetlookup.e2e;

import dev.parquetlookup.s3proxy.S3ProxyServer;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented way to read dimensions from S3 (docs/deployment.md, "{@code s3a://}"), run as a
 * user runs it: the S3 jars collected by the documented Maven snippet and command ({@code
 * src/test/s3-jars}, run by maven-invoker-plugin into {@code target/s3-jars-project}) are added
 * with {@code ADD JAR} beside the shaded SQL jar through the SQL Gateway of a multi-process cluster
 * whose {@code lib/} has no S3 support, the table's {@code path} is {@code s3a://} on S3Proxy (its
 * own JVM on loopback) with {@code hadoop.fs.s3a.*} options, and the lookup join's filesystem sink
 * must hold exactly the expected enrichment.
 */
class S3LookupJoinITCase {

    @RegisterExtension static final FlinkClusterExtension FLINK = new FlinkClusterExtension();

    private static final long SEED = 20_261_201L;
    private static final long CUSTOMERS = 12_000; // even ids 0 .. 23_998
    private static final int FILES = 3;
    private static final int EVENTS = 3_000;
    private static final String BUCKET = "dimensions";
    private static final String PREFIX = "s3a://" + BUCKET + "/customers/";

    private static S3ProxyServer s3;

    @BeforeAll
    static void startS3Proxy() throws Exception {
        s3 =
                new S3ProxyServer(
                        Path.of(FlinkCluster.requiredProperty("e2e.s3proxy.lib")),
                        Path.of(FlinkCluster.requiredProperty("e2e.work.dir")));
        s3.start();
        s3.createBucket(BUCKET);
    }

    @AfterAll
    static void stopS3Proxy() throws IOException {
        if (s3 != null) {
            s3.close();
        }
    }

    /**
     * The docs show the very {@code <dependencies>} block and command the build runs, and the jar
     * count and size it yields; no Hadoop jar the connector bundles comes with them.
     */
    @Test
    void docsDescribeTheCollectedJars() throws IOException {
        String docs =
                Files.readString(
                        Path.of(FlinkCluster.requiredProperty("e2e.deployment.doc")),
                        StandardCharsets.UTF_8);
        String section = section(docs, "### `s3a://`");
        String pom =
                Files.readString(
                        Path.of(FlinkCluster.requiredProperty("e2e.s3.jars.pom")),
                        StandardCharsets.UTF_8);
        assertThat(normalized(firstMatch(section, "(?s)```xml\\s*(.*?)```")))
                .as("the docs' Maven snippet is src/test/s3-jars/pom.xml's <dependencies>")
                .isEqualTo(normalized(firstMatch(pom, "(?s)\n(<dependencies>.*</dependencies>)")));
        assertThat(section)
                .contains(
                        "mvn org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"
                                + " -DincludeScope=runtime -DoutputDirectory=s3-jars");

        List<Path> jars = s3Jars();
        long bytes = 0;
        for (Path jar : jars) {
            bytes += Files.size(jar);
        }
        String countAndSize =
                String.format(Locale.ROOT, "%d jars, %.1f MiB", jars.size(), bytes / 1048576.0);
        System.out.println("S3 jars: " + countAndSize + " " + names(jars));
        assertThat(section).as("the docs state the jars' count and size").contains(countAndSize);
        assertThat(names(jars))
                .contains("hadoop-aws-3.5.0.jar", "s3-2.35.4.jar", "s3-transfer-manager-2.35.4.jar")
                .noneMatch(n -> n.startsWith("bundle-"))
                .noneMatch(n -> n.startsWith("hadoop-common") || n.startsWith("hadoop-auth"))
                .noneMatch(n -> n.startsWith("hadoop-shaded"));
    }

    @Test
    @Timeout(240)
    void lookupJoinReadsTheDimensionFromS3ThroughAddedJars() throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        assertThat(names(jarsIn(Path.of(FlinkCluster.requiredProperty("e2e.flink.lib")))))
                .as("the cluster's lib/ has no S3 support of its own")
                .noneMatch(n -> n.startsWith("hadoop-") || n.startsWith("s3-"));
        Path data = FLINK.dataDir();
        List<Path> files = writeDimension(data.resolve("customers"));
        uploadToS3(files);

        System.out.println("events seed " + SEED);
        List<long[]> events = EnrichmentJob.events(new Random(SEED), EVENTS, 27_000);
        Path eventsDir = data.resolve("events");
        EnrichmentJob.writeEventsCsv(eventsDir, events);
        Path out = data.resolve("enriched");
        Path connectorJar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        List<Path> s3Jars = s3Jars();

        try (SqlGatewayClient.Session sql =
                cluster.gateway().openSession(Map.of("parallelism.default", "4"))) {
            sql.execute("ADD JAR '" + connectorJar + "'");
            for (Path jar : s3Jars) {
                sql.execute("ADD JAR '" + jar + "'");
            }
            assertThat(sql.execute("SHOW JARS").rows())
                    .as("the connector jar and every S3 jar are added")
                    .hasSize(1 + s3Jars.size());

            StringBuilder hadoopOptions = new StringBuilder();
            s3.hadoopOptions()
                    .forEach(
                            (k, v) ->
                                    hadoopOptions
                                            .append(", 'hadoop.")
                                            .append(k)
                                            .append("' = '")
                                            .append(v)
                                            .append('\''));
            sql.execute(
                    "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
                            + " 'connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + PREFIX
                            + "'"
                            + hadoopOptions
                            + ")");
            EnrichmentJob.run(sql, cluster, eventsDir, out);
        }

        EnrichmentJob.assertEnriched(out, events, CUSTOMERS, SEED);
    }

    /** The dimension's Parquet files, written locally (to be uploaded). */
    private static List<Path> writeDimension(Path dir) throws IOException {
        DimensionFiles.write(dir, CUSTOMERS, FILES, WriterOptions.Codec.ZSTD);
        try (Stream<Path> list = Files.list(dir)) {
            List<Path> files =
                    list.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                            .sorted()
                            .toList();
            assertThat(files).hasSize(FILES);
            return files;
        }
    }

    /** Puts the files under {@link #PREFIX} through S3A and checks S3Proxy lists them whole. */
    private static void uploadToS3(List<Path> files) throws IOException {
        Configuration conf = new Configuration();
        s3.hadoopOptions().forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create(PREFIX), conf)) {
            for (Path file : files) {
                fs.copyFromLocalFile(
                        new org.apache.hadoop.fs.Path(file.toUri()),
                        new org.apache.hadoop.fs.Path(PREFIX + file.getFileName()));
            }
            FileStatus[] listed = fs.listStatus(new org.apache.hadoop.fs.Path(PREFIX));
            assertThat(listed).hasSize(files.size());
            for (FileStatus status : listed) {
                Path local = files.get(0).resolveSibling(status.getPath().getName());
                assertThat(status.getLen()).as("%s", status.getPath()).isEqualTo(Files.size(local));
            }
        }
    }

    /** The jars the documented command collected, in name order. */
    private static List<Path> s3Jars() throws IOException {
        Path dir = Path.of(FlinkCluster.requiredProperty("e2e.s3.jars"));
        assertThat(dir)
                .as("the S3 jars (collected by maven-invoker-plugin from src/test/s3-jars)")
                .isDirectory();
        List<Path> jars = jarsIn(dir);
        assertThat(jars).isNotEmpty();
        return jars;
    }

    private static List<Path> jarsIn(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
    }

    private static List<String> names(List<Path> jars) {
        return jars.stream().map(p -> p.getFileName().toString()).toList();
    }

    /** A Markdown section from its heading to the next heading of the same or a higher level. */
    private static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertThat(start).as("docs/deployment.md has the section %s", heading).isNotNegative();
        int next = markdown.indexOf("\n## ", start + 1);
        int sibling = markdown.indexOf("\n### ", start + 1);
        int end = next < 0 ? markdown.length() : next;
        if (sibling >= 0 && sibling < end) {
            end = sibling;
        }
        return markdown.substring(start, end);
    }

    private static String firstMatch(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("%s in:%n%s", regex, text).isTrue();
        return m.group(1);
    }

    private static String normalized(String xml) {
        return xml.replaceAll("\\s+", " ").replaceAll(">\\s+<", "><").trim();
    }
}
