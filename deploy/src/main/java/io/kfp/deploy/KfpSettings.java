package io.kfp.deploy;

import io.kfp.deploy.cluster.FlinkTls;
import io.kfp.deploy.kafka.KafkaSecurity;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * Where kfp works and what it starts, from its environment variables: the run directory, the ports
 * of our own processes, how many TaskManagers, an existing Flink installation or Kafka cluster to
 * use instead of ours. Read once per command; every other class takes it from here.
 *
 * @param home the deploy module ({@code deploy/}): its conf/ templates and target/dist
 * @param callerDir where kfp was called from: relative paths the user gives are relative to it
 */
public record KfpSettings(
        Path home,
        Path callerDir,
        Path run,
        boolean runDirGiven,
        int kafkaPort,
        int controllerPort,
        boolean kafkaPortGiven,
        int restPort,
        int rpcPort,
        String promPorts,
        int taskManagers,
        Path flinkDir,
        String bootstrap,
        boolean externalKafka,
        String javaBin,
        List<String> jvmOptions,
        String version,
        Topology topology,
        int prometheusPort,
        int alertmanagerPort,
        int exporterPort,
        String alertWebhook) {

    /**
     * kfp's own variables. They say where things run, not how a job behaves, so they are removed
     * from the environment of a job's main, which reads every other {@code KFP_*} as a job option.
     */
    /**
     * Set by kfp when it runs a command again on the lab's client host: there it must not do so
     * once more.
     */
    public static final String ON_CLIENT_HOST = "KFP_ON_CLIENT_HOST";

    public static final List<String> OWN_VARIABLES =
            List.of(
                    "KFP_RUN_DIR",
                    "KFP_KAFKA_PORT",
                    "KFP_CONTROLLER_PORT",
                    "KFP_REST_PORT",
                    "KFP_RPC_PORT",
                    "KFP_PROM_PORTS",
                    "KFP_TASKMANAGERS",
                    "KFP_TOPOLOGY",
                    "KFP_PROMETHEUS_PORT",
                    "KFP_ALERTMANAGER_PORT",
                    "KFP_EXPORTER_PORT",
                    "KFP_ALERT_WEBHOOK",
                    "KFP_JVM_OPTIONS",
                    ON_CLIENT_HOST);

    public static KfpSettings from(Map<String, String> given, Path home, Path callerDir) {
        // An empty variable means unset, as ${X:-default} does in a shell.
        Map<String, String> env = new HashMap<>();
        given.forEach(
                (k, v) -> {
                    if (v != null && !v.isBlank()) {
                        env.put(k, v);
                    }
                });
        Path dist = home.resolve("target").resolve("dist");
        String runDir = env.get("KFP_RUN_DIR");
        String topologyName = env.get("KFP_TOPOLOGY");
        Topology topology =
                topologyName == null || topologyName.isBlank()
                        ? null
                        : Topology.load(topologyName.trim(), home, callerDir);
        Path defaultRun =
                topology == null
                        ? home.resolve("run")
                        : home.resolve("run").resolve(topology.name());
        int kafkaPort = port(env, "KFP_KAFKA_PORT", 9092);
        String bootstrap = env.get("KAFKA_BOOTSTRAP");
        String flinkHome = env.get("FLINK_HOME");
        return new KfpSettings(
                home,
                callerDir,
                runDir == null ? defaultRun : callerDir.resolve(runDir).normalize(),
                runDir != null,
                kafkaPort,
                port(env, "KFP_CONTROLLER_PORT", 9093),
                env.containsKey("KFP_KAFKA_PORT"),
                port(env, "KFP_REST_PORT", 8081),
                port(env, "KFP_RPC_PORT", 6123),
                portRange(env, "KFP_PROM_PORTS", "9249-9259"),
                number(env, "KFP_TASKMANAGERS", 3),
                flinkHome == null || flinkHome.isBlank()
                        ? dist.resolve("flink")
                        : Path.of(flinkHome),
                bootstrap != null && !bootstrap.isBlank()
                        ? bootstrap
                        : topology == null
                                ? "127.0.0.1:" + kafkaPort
                                : topology.bootstrap(kafkaPort),
                bootstrap != null && !bootstrap.isBlank(),
                env.getOrDefault(
                        "JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString()),
                jvmOptions(env.get("KFP_JVM_OPTIONS")),
                projectVersion(),
                topology,
                port(env, "KFP_PROMETHEUS_PORT", 9090),
                port(env, "KFP_ALERTMANAGER_PORT", 9095),
                port(env, "KFP_EXPORTER_PORT", 9096),
                webhook(env.get("KFP_ALERT_WEBHOOK")));
    }

    private static String webhook(String url) {
        if (url == null) {
            return null;
        }
        if (!url.matches("https?://\\S+")) {
            throw new KfpException(
                    "KFP_ALERT_WEBHOOK="
                            + url
                            + " is not an http(s) URL: give the address Alertmanager posts alerts"
                            + " to, e.g. http://127.0.0.1:5001/alerts.");
        }
        return url;
    }

    /**
     * KFP_JVM_OPTIONS: options for every JVM kfp starts and leaves running (brokers, ZooKeeper,
     * S3Proxy, JobManagers, TaskManagers), after kfp's own, so an option given here wins - e.g.
     * {@code -XX:TieredStopAtLevel=1}, which on a machine of two cores running a whole cluster
     * spares the CPU the optimising compiler takes in each process's first minutes.
     */
    private static List<String> jvmOptions(String value) {
        if (value == null) {
            return List.of();
        }
        List<String> options = List.of(value.trim().split("\\s+"));
        for (String option : options) {
            if (!option.startsWith("-")) {
                throw new KfpException(
                        "KFP_JVM_OPTIONS="
                                + value
                                + ": '"
                                + option
                                + "' is not a JVM option. Give options separated by spaces, each"
                                + " starting with '-', e.g. KFP_JVM_OPTIONS='-XX:TieredStopAtLevel=1'.");
            }
        }
        return options;
    }

    /**
     * The command line of a JVM kfp leaves running: java, {@code ownOptions}, {@link #jvmOptions()}
     * (KFP_JVM_OPTIONS), then {@code rest} (class path, main class or jar, arguments); a list the
     * caller may add to.
     */
    public List<String> java(List<String> ownOptions, String... rest) {
        List<String> command = new ArrayList<>();
        command.add(javaBin);
        command.addAll(ownOptions);
        command.addAll(jvmOptions);
        command.addAll(List.of(rest));
        return command;
    }

    public Path repo() {
        return home.getParent();
    }

    /**
     * Where kfp's own classes are, for the cluster's JVMs (our Prometheus reporter) and Flink's CLI
     * (our job listener).
     */
    public String ownClasspath() {
        Path classes = home().resolve("target").resolve("classes");
        Path jar = dist().resolve("kfp").resolve("kfp.jar");
        return Files.isDirectory(classes) ? classes + ":" + jar : jar.toString();
    }

    public Path dist() {
        return home.resolve("target").resolve("dist");
    }

    /** Fails unless {@code kfp build} has assembled the cluster and the broker. */
    public void requireDist() {
        if (!Files.isDirectory(dist().resolve("flink").resolve("lib"))
                || !Files.isDirectory(dist().resolve("kafka").resolve("libs"))) {
            throw new KfpException("not built yet: run 'kfp build' first.");
        }
    }

    /**
     * The secure broker's users, certificates and client settings ({@code kfp kafka start
     * --secure}).
     */
    public KafkaSecurity kafkaSecurity() {
        return new KafkaSecurity(run);
    }

    /**
     * What every Kafka client kfp makes starts from: the bootstrap servers, and on the secure
     * broker kfp's admin user (never on an external cluster: KAFKA_BOOTSTRAP brings its own).
     */
    public Properties kafkaClient() {
        Properties props = new Properties();
        if (!externalKafka && kafkaSecurity().enabled()) {
            props.putAll(kafkaSecurity().adminSettings());
        }
        props.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return props;
    }

    /**
     * The cluster's configuration directory, written from conf/flink by every command that needs
     * it.
     */
    public Path flinkConf() {
        return run.resolve("flink-conf");
    }

    /** The REST API of the (first) JobManager. */
    public String restUrl() {
        return restUrl(topology == null ? null : topology.with(Topology.Role.JOBMANAGER).get(0));
    }

    /**
     * The REST API of the JobManager on {@code host} (null: the one host): https with client
     * certificates once {@link FlinkTls} made the key (conf/flink/tls.yaml).
     */
    public String restUrl(Topology.Host host) {
        return (new FlinkTls(run).enabled() ? "https://" : "http://")
                + address(host)
                + ":"
                + restPort;
    }

    /**
     * Where a host of the topology keeps its PID files, logs and data; the one host keeps them in
     * the run directory itself.
     */
    public Path hostRun(Topology.Host host) {
        return host == null ? run : run.resolve("hosts").resolve(host.name());
    }

    /** The processes of {@code host} (null: this machine, the one-host setup). */
    public Processes processes(Topology.Host host, PrintStream out, PrintStream err) {
        return host == null
                ? new Processes(run, out, err)
                : new Processes(hostRun(host), command -> topology.onHost(host, command), out, err);
    }

    /** The address a process on {@code host} listens on. */
    public static String address(Topology.Host host) {
        return host == null ? "127.0.0.1" : host.address();
    }

    /**
     * A path as the user meant it: relative to where kfp was called from; URIs ({@code s3://},
     * {@code file:...}) and absolute paths as given.
     */
    public String absolute(String path) {
        if (path.startsWith("/") || path.contains("://") || path.startsWith("file:")) {
            return path;
        }
        return callerDir.resolve(path).normalize().toString();
    }

    /**
     * A template from conf/ with its {@code @KFP_...@} placeholders filled in, for the one host.
     */
    public String fill(String template) {
        return fill(template, null);
    }

    /** A template filled in for {@code host}: its address and directory. */
    public String fill(String template, Topology.Host host) {
        return template.replace("@KFP_HOST@", address(host))
                .replace("@KFP_HOST_DIR@", hostRun(host).toString())
                .replace("@KFP_RUN_DIR@", run.toString())
                .replace("@KFP_KAFKA_PORT@", String.valueOf(kafkaPort))
                .replace("@KFP_CONTROLLER_PORT@", String.valueOf(controllerPort))
                .replace("@KFP_REST_PORT@", String.valueOf(restPort))
                .replace("@KFP_RPC_PORT@", String.valueOf(rpcPort))
                .replace("@KFP_PROM_PORTS@", promPorts);
    }

    private static int port(Map<String, String> env, String name, int fallback) {
        int port = number(env, name, fallback);
        if (port < 1 || port > 65535) {
            throw new KfpException(
                    name + "=" + env.get(name) + " is not a port: give a number from 1 to 65535.");
        }
        return port;
    }

    private static int number(Map<String, String> env, String name, int fallback) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new KfpException(
                    name
                            + "="
                            + value
                            + " is not a positive whole number: give one, e.g. "
                            + fallback
                            + ".");
        }
    }

    private static String portRange(Map<String, String> env, String name, String fallback) {
        String value = env.getOrDefault(name, fallback).trim();
        if (!value.matches("\\d{1,5}(-\\d{1,5})?")) {
            throw new KfpException(
                    name
                            + "="
                            + value
                            + " is not a port or a range of ports: write e.g. 9249-9259.");
        }
        return value;
    }

    /**
     * The project version the build wrote into kfp.properties (the job jars carry it in their
     * names).
     */
    public static String projectVersion() {
        try (InputStream in = KfpSettings.class.getResourceAsStream("/kfp.properties")) {
            if (in == null) {
                throw new KfpException(
                        "kfp.properties is missing from kfp's classpath: run 'kfp build'.");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
