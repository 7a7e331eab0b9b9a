package dev.parquetlookup.flink.table;

import dev.parquetlookup.tools.Main;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.apache.hadoop.conf.Configuration;

import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Documented commands are tested: every {@code bash} and {@code sql} fenced block of README.md and
 * docs/*.md is either run here as printed, or listed in {@link #EXCLUDED} with the reason (and,
 * where one exists, the test that covers it). A new block that is neither fails {@link
 * #everyBlockIsRunOrExcludedWithAReason}; an exclusion whose block left the docs fails it too.
 *
 * <p>How a block runs, the documented placeholders replaced by the fixtures of {@link #SUBSTITUTED}
 * (paths such as {@code s3a://bucket/lake/products} become a local table of the same shape):
 *
 * <ul>
 *   <li>SQL: each statement in one table environment per document (on a MiniCluster), in order.
 *       {@code SELECT}s must return rows; after each {@code CREATE TABLE} a lookup join on the
 *       table's key must return rows (the table is planned, opened and read). The user's {@code
 *       orders} stream of the examples is a bounded datagen table (customer ids 0..19). {@code ADD
 *       JAR} is checked to name a SQL jar this build writes, not run (the connector is on this
 *       class path; e2e-tests runs {@code ADD JAR} on a cluster).
 *   <li>Shell: {@code java -jar <SQL jar> ...} runs the command line in-process ({@link
 *       Main#commandLine()}) and must exit 0; {@code JAR=...} must name a SQL jar this build
 *       writes. Any other command in a run block fails the test. {@code java -jar} itself on the
 *       built jar: e2e-tests ShadedJarCommandLineITCase.
 * </ul>
 *
 * One MiniCluster, fixtures of 100 rows, no external process: 68 s on the shared 2-core machine at
 * load average 11-13 (20 s of it the README's block, the first to start jobs).
 */
class DocumentedCommandsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    private static final Path ROOT = Path.of("..");

    /**
     * Blocks not run: document and the block's first line, to the reason. Kept short on purpose:
     * each entry is a command a reader could run that this test does not check.
     */
    static final Map<String, String> EXCLUDED =
            Map.ofEntries(
                    Map.entry(
                            "README.md|mvn -B -q -Prun-example -pl examples -am package -DskipTests",
                            "builds every module, then runs the example for a minute; the same"
                                    + " main runs in examples' SqlEnrichmentExampleITCase"),
                    Map.entry("README.md|mvn -B verify", "the whole test suite (CI runs it)"),
                    Map.entry(
                            "docs/deployment.md|mvn -B verify                                    #"
                                    + " everything, as CI does",
                            "the test suites themselves"),
                    Map.entry(
                            "docs/benchmarks.md|mvn -B -q test-compile dependency:build-classpath"
                                    + " -pl examples -am \\",
                            "a 10M-row measurement with an 8 GB heap (minutes)"),
                    Map.entry(
                            "docs/deployment.md|mvn"
                                    + " org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"
                                    + " -DincludeScope=runtime -DoutputDirectory=s3-jars",
                            "run as printed on the documented pom by e2e-tests (maven-invoker-plugin"
                                    + " execution s3-jars); S3JarsOnClusterITCase deploys the result"),
                    Map.entry(
                            "docs/deployment.md|CREATE TABLE customers (id BIGINT, name STRING)"
                                    + " WITH (",
                            "needs AWS S3 and credentials; the same options against S3Proxy:"
                                    + " e2e-tests S3LookupJoinITCase"),
                    Map.entry(
                            "docs/deployment.md|'hadoop.fs.s3a.endpoint' = 'http://127.0.0.1:9000',",
                            "a fragment of options, not a statement"),
                    Map.entry(
                            "docs/formats.md|CREATE TABLE customers (id BIGINT, region STRING, name"
                                    + " STRING) WITH (",
                            "needs a PostgreSQL catalog database; the JDBC catalog over H2:"
                                    + " formats' IcebergCatalogTest"),
                    Map.entry(
                            "docs/refresh.md|cp new-part-0.parquet /data/customers/.part-0.parquet.tmp"
                                    + "      # or write it there directly",
                            "a publishing pattern on the reader's own files; the swap it relies on:"
                                    + " ParquetLookupRefreshITCase"),
                    Map.entry(
                            "docs/refresh.md|hdfs dfs -put new-part-0.parquet"
                                    + " /data/customers/_tmp/part-0.parquet",
                            "needs HDFS"),
                    Map.entry(
                            "docs/refresh.md|aws s3 cp part-0.parquet"
                                    + " s3://bucket/customers/v=0008/part-0.parquet",
                            "needs the AWS CLI and S3"),
                    Map.entry(
                            "docs/sql-connector.md|SELECT /*+ LOOKUP('table'='c',"
                                    + " 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay',",
                            "a fragment (ends in ...)"));

    private static final Pattern FENCE = Pattern.compile("^```(bash|sh|shell|sql)\\b.*$");
    private static final Pattern JAVA_JAR = Pattern.compile("^java -jar (\\S+)\\s+(.*)$");
    private static final Pattern CREATE_TABLE =
            Pattern.compile("(?is)^CREATE TABLE (\\w+)\\s*\\(\\s*(\\w+).*$");
    private static final Pattern SORT_KEY = Pattern.compile("'sort-key'\\s*=\\s*'(\\w+)");

    /** One fenced block: where it is and its text. */
    record Block(String doc, int line, String language, List<String> lines) {
        String key() {
            return doc + "|" + lines.get(0).strip();
        }

        @Override
        public String toString() {
            return doc + ":" + line;
        }
    }

    @TempDir static Path fixtures;

    /** Documented placeholder -> fixture, longest first (filled in {@link #writeFixtures}). */
    private static final Map<String, String> SUBSTITUTED = new LinkedHashMap<>();

    @BeforeAll
    static void writeFixtures() throws Exception {
        Path plain = fixtures.resolve("customers");
        writeCustomers(plain.resolve("part-0.parquet"));
        Path versions = fixtures.resolve("versioned");
        writeCustomers(versions.resolve("v=0001/part-0.parquet"));
        Files.createFile(versions.resolve("v=0001/_SUCCESS"));
        Path iceberg = fixtures.resolve("warehouse/db/customers");
        writeIceberg(iceberg);
        Path delta = fixtures.resolve("lake/products");
        writeDelta(delta);
        Path raw = fixtures.resolve("raw");
        Files.createDirectories(raw.resolve("customers"));
        duckDb(
                "COPY (SELECT i::BIGINT AS id, 'name-' || i AS name, 'c' || (i % 5) AS country"
                        + " FROM range(100) t(i) ORDER BY hash(i)) TO '"
                        + raw.resolve("customers/part-0.parquet")
                        + "' (FORMAT PARQUET)");
        duckDb(
                "COPY (SELECT i::BIGINT AS id, 'name-' || i AS name, 'c' || (i % 5) AS country"
                        + " FROM range(100) t(i) ORDER BY i) TO '"
                        + raw.resolve("customers.parquet")
                        + "' (FORMAT PARQUET)");

        SUBSTITUTED.put("s3a://bucket/warehouse/db/customers", iceberg.toUri().toString());
        SUBSTITUTED.put("s3a://bucket/lake/products", delta.toUri().toString());
        SUBSTITUTED.put("s3a://bucket/dims/customers/", plain.toUri().toString());
        SUBSTITUTED.put("s3a://bucket/customers/", versions.toUri().toString());
        SUBSTITUTED.put("file:///data/customers/", plain.toUri().toString());
        SUBSTITUTED.put("file:///data/customers", plain.toUri().toString());
        SUBSTITUTED.put("/data/raw/customers.parquet", raw.resolve("customers.parquet").toString());
        SUBSTITUTED.put("/data/raw/customers", raw.resolve("customers").toString());
        SUBSTITUTED.put("/data/lake/products", delta.toString());
        SUBSTITUTED.put("/data/warehouse/db/customers", iceberg.toString());
    }

    @Test
    void everyBlockIsRunOrExcludedWithAReason() throws IOException {
        List<Block> blocks = blocks();
        assertThat(blocks).as("blocks found in README.md and docs/").hasSizeGreaterThan(10);
        Set<String> keys = new TreeSet<>();
        blocks.forEach(b -> keys.add(b.key()));
        assertThat(keys)
                .as("excluded blocks still in the docs (remove stale entries)")
                .containsAll(EXCLUDED.keySet());
        assertThat(EXCLUDED.values()).allSatisfy(reason -> assertThat(reason).isNotBlank());
        assertThat(runnable(blocks))
                .as("blocks run by this test")
                .extracting(Block::doc)
                .contains("README.md", "docs/connector.md", "docs/formats.md");
    }

    static Stream<String> documentsWithRunnableBlocks() throws IOException {
        return runnable(blocks()).stream().map(Block::doc).distinct();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documentsWithRunnableBlocks")
    @Timeout(180)
    void documentedCommandsRunAsPrinted(String doc) throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql(
                "CREATE TABLE orders (order_id BIGINT, customer_id BIGINT, amount DECIMAL(10, 2),"
                        + " proc_time AS PROCTIME()) WITH ('connector' = 'datagen',"
                        + " 'fields.customer_id.kind' = 'sequence',"
                        + " 'fields.customer_id.start' = '0', 'fields.customer_id.end' = '19')");
        int run = 0;
        for (Block block : runnable(blocks())) {
            if (!block.doc().equals(doc)) {
                continue;
            }
            run += block.language().equals("sql") ? runSql(tEnv, block) : runShell(block);
        }
        assertThat(run).as("statements and commands run from %s", doc).isPositive();
    }

    /** Runs the block's statements; returns how many. */
    private static int runSql(TableEnvironment tEnv, Block block) throws Exception {
        int run = 0;
        for (String raw : substitute(String.join("\n", block.lines())).split(";\\s*(\\n|$)")) {
            String statement = withoutLeadingComments(raw);
            if (statement.isBlank()) {
                continue;
            }
            String upper = statement.toUpperCase();
            run++;
            if (upper.startsWith("ADD JAR")) {
                String jar = statement.replaceAll("(?s)^ADD JAR\\s+'([^']+)'.*$", "$1");
                assertThat(Path.of(jar).getFileName().toString())
                        .as("%s: the jar ADD JAR names", block)
                        .isIn(sqlJarNames());
                continue;
            }
            Matcher create = CREATE_TABLE.matcher(statement);
            if (create.matches()) {
                tEnv.executeSql("DROP TABLE IF EXISTS " + create.group(1));
                tEnv.executeSql(statement);
                Matcher sortKey = SORT_KEY.matcher(statement);
                String key = sortKey.find() ? sortKey.group(1) : create.group(2);
                List<Row> rows =
                        SqlTestSupport.collect(
                                tEnv,
                                "SELECT c.* FROM orders AS o JOIN "
                                        + create.group(1)
                                        + " FOR SYSTEM_TIME AS OF o.proc_time AS c"
                                        + " ON o.customer_id = c."
                                        + key);
                assertThat(rows).as("%s: a lookup join on %s", block, create.group(1)).isNotEmpty();
            } else if (upper.startsWith("SELECT")) {
                assertThat(SqlTestSupport.collect(tEnv, statement))
                        .as("%s: %s", block, statement)
                        .isNotEmpty();
            } else {
                tEnv.executeSql(statement);
            }
        }
        return run;
    }

    /** Runs the block's commands; returns how many. */
    private static int runShell(Block block) {
        int run = 0;
        for (String line : joinContinuations(block.lines())) {
            // prepare's output: one folder per document (each prepares into it once).
            String command =
                    substitute(
                            line.replaceAll("\\s+#.*$", "")
                                    .trim()
                                    .replace(
                                            "/data/lookup/customers",
                                            fixtures.resolve("lookup")
                                                    .resolve(block.doc().replace('/', '_'))
                                                    .toString()));
            if (command.isEmpty() || command.startsWith("#")) {
                continue;
            }
            if (command.startsWith("JAR=")) {
                assertThat(Path.of(command.substring(4)).getFileName().toString())
                        .as("%s: %s", block, command)
                        .isIn(sqlJarNames());
                run++;
                continue;
            }
            Matcher java = JAVA_JAR.matcher(command);
            assertThat(java.matches())
                    .as("%s: only java -jar <SQL jar> commands run here: %s", block, command)
                    .isTrue();
            String jar = java.group(1);
            if (!jar.equals("$JAR")) {
                assertThat(Path.of(jar).getFileName().toString())
                        .as("%s: the jar of %s", block, command)
                        .isIn(sqlJarNames());
            }
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit =
                    Main.commandLine()
                            .setOut(new PrintWriter(out))
                            .setErr(new PrintWriter(err))
                            .execute(java.group(2).trim().split("\\s+"));
            assertThat(exit)
                    .as("%s: %s%n--- out%n%s--- err%n%s", block, command, out, err)
                    .isZero();
            run++;
        }
        return run;
    }

    /** The SQL jars this build writes (parent pom: shade-sql-connector), both Flink lines. */
    private static List<String> sqlJarNames() {
        String name = System.getProperty("docs.sql.connector.name");
        String version = System.getProperty("docs.project.version");
        assertThat(name)
                .as("system property docs.sql.connector.name (connector/pom.xml)")
                .isNotNull();
        return List.of(name + "-" + version + ".jar", name + "-1.20-" + version + ".jar");
    }

    private static String substitute(String text) {
        String result = text;
        for (Map.Entry<String, String> e : SUBSTITUTED.entrySet()) {
            result = result.replace(e.getKey(), e.getValue());
        }
        return result;
    }

    private static String withoutLeadingComments(String statement) {
        List<String> lines = new ArrayList<>(statement.strip().lines().toList());
        while (!lines.isEmpty() && lines.get(0).strip().startsWith("--")) {
            lines.remove(0);
        }
        return String.join("\n", lines).strip();
    }

    private static List<String> joinContinuations(List<String> lines) {
        List<String> joined = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : lines) {
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                joined.add(current.append(line).toString());
                current.setLength(0);
            }
        }
        return joined;
    }

    private static List<Block> runnable(List<Block> blocks) {
        return blocks.stream().filter(b -> !EXCLUDED.containsKey(b.key())).toList();
    }

    /** Every bash/sh/shell/sql fenced block of README.md and docs/*.md, in document order. */
    static List<Block> blocks() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<Block> blocks = new ArrayList<>();
        for (Path doc : docs) {
            String name = ROOT.relativize(doc).toString().replace('\\', '/');
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher fence = FENCE.matcher(lines.get(i));
                if (!fence.matches()) {
                    continue;
                }
                int start = i + 1;
                int end = start;
                while (end < lines.size() && !lines.get(end).startsWith("```")) {
                    end++;
                }
                List<String> body =
                        lines.subList(start, end).stream().filter(l -> !l.isBlank()).toList();
                if (!body.isEmpty()) {
                    blocks.add(new Block(name, start + 1, fence.group(1), body));
                }
                i = end;
            }
        }
        return blocks;
    }

    // ---- fixtures: the documented tables' shapes, written by each format's own writers

    private static void writeCustomers(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.optional("name", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("country", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("credit", new ValueType(Kind.DECIMAL, 12, 2)),
                        ColumnSpec.optional("updated", new ValueType(Kind.TIMESTAMP, 3, 0)),
                        ColumnSpec.optional("tier", ValueType.of(Kind.INT)));
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(), columns, List.of("id"), WriterOptions.builder().build())) {
            for (long id = 0; id < 100; id++) {
                writer.write(
                        new Object[] {
                            id,
                            "name-" + id,
                            "c" + (id % 5),
                            BigDecimal.valueOf(id * 100 + 25, 2),
                            new TimestampValue(1_700_000_000_000L + id * 1_000, 0),
                            (int) (id % 7)
                        });
            }
        }
    }

    private static void writeIceberg(Path root) throws IOException {
        Schema schema =
                new Schema(
                        Types.NestedField.required(1, "id", Types.LongType.get()),
                        Types.NestedField.optional(2, "name", Types.StringType.get()),
                        Types.NestedField.optional(3, "region", Types.StringType.get()));
        org.apache.iceberg.Table table =
                new HadoopTables(new Configuration())
                        .create(
                                schema,
                                PartitionSpec.unpartitioned(),
                                SortOrder.builderFor(schema).asc("id").build(),
                                Map.of("format-version", "2"),
                                root.toUri().toString());
        DataWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build()
                        .newDataWriter(
                                OutputFileFactory.builderFor(table, 1, 1)
                                        .format(FileFormat.PARQUET)
                                        .build()
                                        .newOutputFile(),
                                PartitionSpec.unpartitioned(),
                                null);
        try (writer) {
            for (long id = 0; id < 100; id++) {
                GenericRecord r = GenericRecord.create(schema);
                r.setField("id", id);
                r.setField("name", "name-" + id);
                r.setField("region", "r" + (id % 3));
                writer.write(r);
            }
        }
        table.newAppend().appendFile(writer.toDataFile()).commit();
    }

    private static void writeDelta(Path root) throws IOException {
        DecimalType price = new DecimalType(10, 2);
        StructType schema =
                new StructType()
                        .add("sku", LongType.LONG, false)
                        .add("title", StringType.STRING, true)
                        .add("price", price, true);
        List<Object> skus = new ArrayList<>();
        List<Object> titles = new ArrayList<>();
        List<Object> prices = new ArrayList<>();
        for (long sku = 0; sku < 100; sku++) {
            skus.add(sku);
            titles.add("product-" + sku);
            prices.add(BigDecimal.valueOf(sku * 100 + 99, 2));
        }
        DeltaKernelTable.create(root.toUri().toString(), schema, Map.of(), "docs test")
                .append(List.of(skus, titles, prices), List.of());
    }

    private static void duckDb(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
