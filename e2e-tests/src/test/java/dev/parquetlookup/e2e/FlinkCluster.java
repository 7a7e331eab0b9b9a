package dev.parquetlookup.e2e;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A Flink session cluster of separate JVMs on 127.0.0.1, assembled from the Maven-resolved jars in
 * {@code e2e-tests/target/flink/lib}: one JobManager, TaskManagers with two slots each, and the SQL
 * Gateway. Ports are chosen free at start; {@code conf/config.yaml}, the processes' logs ({@code
 * log/<process>.log} from Log4j, {@code log/<process>.out} for stdout and stderr) and the
 * checkpoints live under the given work directory and are kept after the run.
 *
 * <p>Every process is stopped by {@link #close()}, and by a JVM shutdown hook if the test JVM exits
 * first (a surefire timeout, say).
 *
 * <pre>{@code
 * try (FlinkCluster cluster = FlinkCluster.start(workDir, 2, Map.of())) {
 *     SqlGatewayClient.Session sql = cluster.gateway().openSession();
 *     String jobId = sql.execute("INSERT INTO sink SELECT * FROM src").jobId();
 *     cluster.waitForJob(jobId, Duration.ofMinutes(2), "FINISHED");
 * }
 * }</pre>
 */
final class FlinkCluster implements AutoCloseable {

    static final String LOOPBACK = "127.0.0.1";
    static final int SLOTS_PER_TASK_MANAGER = 2;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final String BASH_JAVA_UTILS_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
    private static final String CLIENT_PREFIX = "flink-client-";

    /** The flags Flink's own config.yaml puts in env.java.opts.all for Java 17. */
    private static final List<String> JAVA_OPTS =
            List.of(
                    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
                    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.text=ALL-UNNAMED",
                    "--add-opens=java.base/java.time=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1");

    private final Path home;
    private final Path conf;
    private final Path logDir;
    private final Path libDir;
    private final int gatewayPort;
    private final RestClient jobManager;
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Set<String> killed = new HashSet<>();
    private final Thread shutdownHook;
    private List<String> taskManagerJvmArgs;
    private List<String> taskManagerDynamicArgs;
    private int taskManagerCount;
    private int clientRuns;
    private SqlGatewayClient gateway;

    private FlinkCluster(Path home, Path libDir, int restPort, int gatewayPort) {
        this.home = home;
        this.conf = home.resolve("conf");
        this.logDir = home.resolve("log");
        this.libDir = libDir;
        this.gatewayPort = gatewayPort;
        this.jobManager = new RestClient(URI.create("http://" + LOOPBACK + ":" + restPort));
        this.shutdownHook = new Thread(this::killAll, "flink-e2e-cluster-shutdown");
    }

    /**
     * Starts a JobManager, {@code taskManagers} TaskManagers and the SQL Gateway, and returns once
     * all slots are registered and the gateway answers.
     *
     * @param home an empty or new directory for conf/, log/, tmp/ and checkpoints/
     * @param extraConfig config.yaml entries added to (or replacing) the defaults
     */
    static FlinkCluster start(Path home, int taskManagers, Map<String, String> extraConfig)
            throws IOException, TimeoutException {
        Path libDir = Path.of(requiredProperty("e2e.flink.lib"));
        if (!Files.isDirectory(libDir)) {
            throw new IllegalStateException(
                    "no Flink lib/ at "
                            + libDir
                            + ": run the e2e tests through Maven (mvn -B verify), which copies"
                            + " it with maven-dependency-plugin");
        }
        String version = flinkVersion(libDir);
        if (isFlink120() != version.startsWith("1.20.")) {
            throw new IllegalStateException(
                    "lib/ at "
                            + libDir
                            + " holds Flink "
                            + version
                            + " but e2e.flink.line is "
                            + System.getProperty("e2e.flink.line", "2.x"));
        }
        System.out.println("Flink " + version + " cluster from " + libDir);
        int[] ports = freePorts(4);
        FlinkCluster cluster = new FlinkCluster(home, libDir, ports[1], ports[3]);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.writeConfig(ports, extraConfig);
            cluster.startJobManager();
            for (int i = 0; i < taskManagers; i++) {
                cluster.startTaskManagerProcess();
            }
            // The gateway needs no TaskManager to start: it starts while they register.
            Process gateway = cluster.launchGateway();
            cluster.awaitTaskManagers(taskManagers);
            cluster.awaitGateway(gateway);
            return cluster;
        } catch (IOException | TimeoutException | RuntimeException e) {
            System.err.println(cluster.logTails(60));
            cluster.close();
            throw e;
        }
    }

    /** The JobManager's REST API (the web UI's, {@code /overview}, {@code /jobs/...}). */
    RestClient jobManager() {
        return jobManager;
    }

    /** The SQL Gateway's REST API (v3). */
    SqlGatewayClient gateway() {
        return gateway;
    }

    Path home() {
        return home;
    }

    Path logDir() {
        return logDir;
    }

    /**
     * Names of the TaskManager processes alive now, e.g. {@code [taskmanager-0, taskmanager-1]}.
     */
    List<String> taskManagers() {
        List<String> names = new ArrayList<>();
        processes.forEach(
                (name, p) -> {
                    if (name.startsWith("taskmanager-") && p.isAlive()) {
                        names.add(name);
                    }
                });
        return names;
    }

    /**
     * Starts one more TaskManager and waits until the JobManager lists it. Its name is also its
     * Flink resource id (as shown by {@code /taskmanagers}).
     */
    String startTaskManager() throws IOException, TimeoutException {
        int expected = taskManagers().size() + 1;
        String name = startTaskManagerProcess();
        awaitTaskManagers(expected);
        return name;
    }

    /** {@code kill -9} of one TaskManager process, waiting until the process is gone. */
    void killTaskManager(String name) throws InterruptedException {
        Process p = processes.get(name);
        if (p == null || !name.startsWith("taskmanager-")) {
            throw new IllegalArgumentException(
                    "no TaskManager process " + name + " in " + processes.keySet());
        }
        killed.add(name);
        p.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, like a crashed host
        if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    "TaskManager " + name + " (pid " + p.pid() + ") survived SIGKILL");
        }
    }

    /** The job's status as the JobManager reports it ({@code RUNNING}, {@code FINISHED}, ...). */
    String jobStatus(String jobId) {
        return jobManager.get("/jobs/" + jobId).path("state").asText();
    }

    /**
     * Waits until the job is in one of {@code states}. A job that ends in another terminal state
     * fails fast with its exception history.
     */
    JsonNode waitForJob(String jobId, Duration timeout, String... states) throws TimeoutException {
        Set<String> wanted = new HashSet<>(Arrays.asList(states));
        Set<String> terminal = Set.of("FINISHED", "FAILED", "CANCELED");
        return Poll.until(
                "job " + jobId + " in " + wanted,
                timeout,
                () -> {
                    JsonNode job = jobManager.get("/jobs/" + jobId);
                    String state = job.path("state").asText();
                    if (wanted.contains(state)) {
                        return Optional.of(job);
                    }
                    if (terminal.contains(state)) {
                        throw new IllegalStateException(
                                "job "
                                        + jobId
                                        + " ended "
                                        + state
                                        + " instead of "
                                        + wanted
                                        + "; exceptions: "
                                        + jobManager.get("/jobs/" + jobId + "/exceptions")
                                        + "\nlogs: "
                                        + logDir);
                    }
                    return Optional.empty();
                });
    }

    /** Resource ids of the TaskManagers running at least one task of the job now. */
    Set<String> taskManagersOf(String jobId) {
        Set<String> ids = new HashSet<>();
        for (JsonNode vertex : jobManager.get("/jobs/" + jobId).path("vertices")) {
            JsonNode tms =
                    jobManager.get(
                            "/jobs/"
                                    + jobId
                                    + "/vertices/"
                                    + vertex.path("id").asText()
                                    + "/taskmanagers");
            for (JsonNode tm : tms.path("taskmanagers")) {
                String status = tm.path("status").asText();
                if (status.equals("RUNNING")
                        || status.equals("DEPLOYING")
                        || status.equals("INITIALIZING")) {
                    ids.add(tm.path("taskmanager-id").asText());
                }
            }
        }
        return ids;
    }

    /** What a {@code flink} command-line run printed and how it ended. */
    record ClientRun(int exitCode, String output, Path log) {}

    /**
     * Runs Flink's command line ({@code bin/flink} without the script: {@code CliFrontend}) in its
     * own JVM against this cluster, e.g. {@code run -c Main job.jar --arg 1}, and waits for it.
     */
    ClientRun runClient(List<String> args, Duration timeout) throws IOException, TimeoutException {
        String name = CLIENT_PREFIX + clientRuns++;
        Path out = logDir.resolve(name + ".out");
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.add("-Xmx512m");
        command.addAll(JAVA_OPTS);
        command.add("-Dlog.file=" + logDir.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        command.add("-cp");
        command.add(libDir.resolve("*").toString());
        command.add("org.apache.flink.client.cli.CliFrontend");
        command.addAll(args);
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(home.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        builder.environment().put("FLINK_LIB_DIR", libDir.toString());
        builder.environment().remove("HADOOP_CLASSPATH");
        Process p = builder.start();
        processes.put(name, p); // stopped with the cluster if the test gives up on it
        System.out.println("started " + name + " pid " + p.pid() + ": " + args);
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new TimeoutException(
                        "flink " + args + " still running after " + timeout + "; output in " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IllegalStateException("interrupted", e);
        }
        return new ClientRun(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), out);
    }

    /** Last {@code lines} lines of every process log, for a failure report. */
    String logTails(int lines) {
        StringBuilder out = new StringBuilder("Flink e2e logs in " + logDir + "\n");
        if (!Files.isDirectory(logDir)) {
            return out.toString();
        }
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path file : files.sorted().toList()) {
                List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
                out.append("===== ")
                        .append(file.getFileName())
                        .append(" (last ")
                        .append(Math.min(lines, all.size()))
                        .append(" of ")
                        .append(all.size())
                        .append(" lines)\n");
                all.subList(Math.max(0, all.size() - lines), all.size())
                        .forEach(l -> out.append(l).append('\n'));
            }
        } catch (IOException e) {
            out.append("(cannot read logs: ").append(e).append(")\n");
        }
        return out.toString();
    }

    /** Stops the gateway, the TaskManagers and the JobManager (SIGTERM, then SIGKILL). */
    @Override
    public void close() {
        List<Process> order = new ArrayList<>(processes.values());
        java.util.Collections.reverse(order); // gateway, TaskManagers, then the JobManager
        for (Process p : order) {
            p.destroy();
        }
        for (Process p : order) {
            try {
                if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                killAll();
                break;
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook is running or ran: it kills what is left.
        }
    }

    private void killAll() {
        processes.values().forEach(Process::destroyForcibly);
    }

    // ----------------------------------------------------------------------------------------

    private void writeConfig(int[] ports, Map<String, String> extraConfig) throws IOException {
        Files.createDirectories(conf);
        Files.createDirectories(logDir);
        Files.createDirectories(home.resolve("tmp"));
        Files.createDirectories(home.resolve("plugins")); // Flink expects the folder, even empty
        Map<String, String> config = new LinkedHashMap<>();
        config.put("jobmanager.rpc.address", LOOPBACK);
        config.put("jobmanager.bind-host", LOOPBACK);
        config.put("jobmanager.rpc.port", Integer.toString(ports[0]));
        config.put("rest.address", LOOPBACK);
        config.put("rest.bind-address", LOOPBACK);
        config.put("rest.port", Integer.toString(ports[1]));
        config.put("blob.server.port", Integer.toString(ports[2]));
        config.put("taskmanager.bind-host", LOOPBACK);
        config.put("taskmanager.host", LOOPBACK);
        config.put("taskmanager.numberOfTaskSlots", Integer.toString(SLOTS_PER_TASK_MANAGER));
        config.put("jobmanager.memory.process.size", "1024m");
        config.put("taskmanager.memory.process.size", "1536m");
        config.put("parallelism.default", "2");
        config.put("io.tmp.dirs", home.resolve("tmp").toString());
        config.put("execution.checkpointing.dir", home.resolve("checkpoints").toUri().toString());
        // Faster registration after start and after a TaskManager loss (defaults: 10 s, 50 s).
        config.put("cluster.registration.error-delay", "1 s");
        config.put("heartbeat.interval", "2 s");
        config.put("heartbeat.timeout", "20 s");
        // Otherwise the REST API serves a cached graph and can hide a short RESTARTING state.
        // Flink 1.20 has no such key: its cache lives as long as the web UI's refresh interval,
        // which must be positive.
        if (isFlink120()) {
            config.put("web.refresh-interval", "100 ms");
        } else {
            config.put("rest.cache.execution-graph.timeout", "0 ms");
        }
        config.putAll(extraConfig);

        StringBuilder yaml = new StringBuilder("# Written by FlinkCluster for one e2e test run.\n");
        config.forEach(
                (k, v) -> yaml.append(k).append(": '").append(v.replace("'", "''")).append("'\n"));
        Files.writeString(conf.resolve("config.yaml"), yaml);
        Files.writeString(
                conf.resolve("log4j.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = MainAppender",
                        "appender.main.name = MainAppender",
                        "appender.main.type = File",
                        "appender.main.append = true",
                        "appender.main.fileName = ${sys:log.file}",
                        "appender.main.layout.type = PatternLayout",
                        "appender.main.layout.pattern = %d{HH:mm:ss,SSS} %-5p %-60c %x - %m%n",
                        "logger.pekko.name = org.apache.pekko",
                        "logger.pekko.level = INFO",
                        "logger.zookeeper.name = org.apache.zookeeper",
                        "logger.zookeeper.level = WARN",
                        ""));
    }

    private void startJobManager() throws IOException, TimeoutException {
        List<List<String>> params = bashJavaUtils("GET_JM_RESOURCE_PARAMS");
        List<String> args =
                new ArrayList<>(
                        List.of("--configDir", conf.toString(), "--executionMode", "cluster"));
        args.addAll(params.get(1));
        Process p =
                launch(
                        "jobmanager",
                        params.get(0),
                        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                        args);
        Poll.until(
                "the JobManager's REST API at " + jobManager.base(),
                START_TIMEOUT,
                () -> {
                    requireAlive("jobmanager", p);
                    return jobManager.answers("/overview") ? Optional.of(true) : Optional.empty();
                });
    }

    private String startTaskManagerProcess() throws IOException {
        if (taskManagerJvmArgs == null) {
            List<List<String>> params = bashJavaUtils("GET_TM_RESOURCE_PARAMS");
            taskManagerJvmArgs = params.get(0);
            taskManagerDynamicArgs = params.get(1);
        }
        String name = "taskmanager-" + taskManagerCount++;
        List<String> args = new ArrayList<>(List.of("--configDir", conf.toString()));
        args.addAll(taskManagerDynamicArgs);
        args.addAll(List.of("-D", "taskmanager.resource-id=" + name));
        launch(
                name,
                taskManagerJvmArgs,
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                args);
        return name;
    }

    private void awaitTaskManagers(int count) throws TimeoutException {
        Poll.until(
                count + " TaskManagers with " + count * SLOTS_PER_TASK_MANAGER + " slots",
                START_TIMEOUT,
                () -> {
                    processes.forEach(
                            (name, p) -> {
                                // The cluster's processes; a `flink run` client ends by design.
                                if (!killed.contains(name) && !name.startsWith(CLIENT_PREFIX)) {
                                    requireAlive(name, p);
                                }
                            });
                    JsonNode overview = jobManager.get("/overview");
                    boolean ready =
                            overview.path("taskmanagers").asInt() == count
                                    && overview.path("slots-total").asInt()
                                            == count * SLOTS_PER_TASK_MANAGER;
                    return ready ? Optional.of(true) : Optional.empty();
                });
    }

    private Process launchGateway() throws IOException {
        List<String> args =
                List.of(
                        "-Dexecution.target=remote",
                        "-Dsql-gateway.endpoint.rest.address=" + LOOPBACK,
                        "-Dsql-gateway.endpoint.rest.bind-address=" + LOOPBACK,
                        "-Dsql-gateway.endpoint.rest.port=" + gatewayPort);
        return launch(
                "sql-gateway",
                List.of("-Xmx512m", "-Xms128m"),
                "org.apache.flink.table.gateway.SqlGateway",
                args);
    }

    private void awaitGateway(Process p) throws TimeoutException {
        RestClient rest = new RestClient(URI.create("http://" + LOOPBACK + ":" + gatewayPort));
        Poll.until(
                "the SQL Gateway at " + rest.base(),
                START_TIMEOUT,
                () -> {
                    requireAlive("sql-gateway", p);
                    return rest.answers("/v3/info") ? Optional.of(true) : Optional.empty();
                });
        gateway = new SqlGatewayClient(rest);
    }

    private Process launch(String name, List<String> jvmArgs, String mainClass, List<String> args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(jvmArgs);
        command.addAll(JAVA_OPTS);
        command.add("-Dlog.file=" + logDir.resolve(name + ".log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        command.add("-cp");
        command.add(libDir.resolve("*").toString());
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(home.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(logDir.resolve(name + ".out").toFile());
        builder.environment().put("FLINK_CONF_DIR", conf.toString());
        builder.environment().put("FLINK_PLUGINS_DIR", home.resolve("plugins").toString());
        builder.environment().remove("HADOOP_CLASSPATH"); // prove the SQL jar needs none
        Process p = builder.start();
        processes.put(name, p);
        System.out.println("started " + name + " pid " + p.pid() + ", logs in " + logDir);
        return p;
    }

    /** Flink's own memory calculation, as its start scripts run it: JVM flags, then -D args. */
    private List<List<String>> bashJavaUtils(String command) throws IOException {
        List<String> cmd =
                List.of(
                        javaExecutable(),
                        "-Xmx128m",
                        "-cp",
                        libDir.resolve("*").toString(),
                        "org.apache.flink.runtime.util.bash.BashJavaUtils",
                        command,
                        "--configDir",
                        conf.toString());
        Path out = logDir.resolve("bash-java-utils-" + command + ".out");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("BashJavaUtils " + command + " failed, see " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IllegalStateException("interrupted", e);
        }
        List<List<String>> results = new ArrayList<>();
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            if (line.startsWith(BASH_JAVA_UTILS_PREFIX)) {
                String value = line.substring(BASH_JAVA_UTILS_PREFIX.length()).trim();
                results.add(value.isEmpty() ? List.of() : List.of(value.split("\\s+")));
            }
        }
        if (results.size() != 2) {
            throw new IllegalStateException(
                    "BashJavaUtils "
                            + command
                            + " printed "
                            + results.size()
                            + " result lines, expected 2; see "
                            + out);
        }
        return results;
    }

    private void requireAlive(String name, Process p) {
        if (!p.isAlive()) {
            throw new IllegalStateException(
                    name
                            + " exited with code "
                            + p.exitValue()
                            + " during start-up\n"
                            + logTails(60));
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Whether lib/ is a Flink 1.20 cluster (system property {@code e2e.flink.line} = {@code 1.20},
     * set by e2e-tests/pom.xml's {@code flink-1.20} run) rather than Flink 2.x. Both read {@code
     * conf/config.yaml} (1.20 as standard YAML when there is no {@code flink-conf.yaml}), serve the
     * SQL Gateway's REST API v3 and start from the same main classes; only a few configuration keys
     * differ.
     */
    static boolean isFlink120() {
        return "1.20".equals(System.getProperty("e2e.flink.line", "2.x"));
    }

    /** The version of the flink-runtime jar in lib/, e.g. {@code 1.20.3}. */
    private static String flinkVersion(Path libDir) throws IOException {
        try (Stream<Path> jars = Files.list(libDir)) {
            return jars.map(p -> p.getFileName().toString())
                    .filter(n -> n.matches("flink-runtime-[0-9.]+\\.jar"))
                    .map(n -> n.substring("flink-runtime-".length(), n.length() - ".jar".length()))
                    .findFirst()
                    .orElseThrow(
                            () -> new IllegalStateException("no flink-runtime jar in " + libDir));
        }
    }

    static String requiredProperty(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    "system property "
                            + key
                            + " is not set: run the e2e tests through Maven (e2e-tests/pom.xml sets it)");
        }
        return value;
    }

    /** Distinct free loopback ports (held open together so no two are equal). */
    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK));
                socket.setReuseAddress(true);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
