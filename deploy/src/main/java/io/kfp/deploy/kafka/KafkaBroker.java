package io.kfp.deploy.kafka;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.job.JobCatalog;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/**
 * Kafka from the {@code kafka_2.13} artifact in {@code target/dist/kafka/libs}: on one host a
 * single KRaft node on 127.0.0.1 ({@code conf/kafka/server.properties}); in a topology one node per
 * kafka host ({@code conf/kafka/cluster.properties}), broker and controller in one process, the
 * controllers forming a static quorum, everything replicated to three brokers.
 */
public final class KafkaBroker {

    public static final String NAME = "kafka";

    private final KfpSettings settings;
    private final PrintStream out;
    private final PrintStream err;

    public KafkaBroker(KfpSettings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** The kafka hosts of the topology; on one host a single null (this machine). */
    private List<Topology.Host> hosts() {
        List<Topology.Host> hosts = new ArrayList<>();
        if (settings.topology() == null) {
            hosts.add(null);
        } else {
            hosts.addAll(settings.topology().with(Topology.Role.KAFKA));
        }
        return hosts;
    }

    /**
     * Starts every node, formatting its storage the first time. {@code secure}: the first format
     * makes it a broker that authenticates and authorizes ({@link KafkaSecurity}); a storage
     * formatted so stays so.
     */
    public void start(boolean secure) {
        if (settings.externalKafka()) {
            out.println(
                    "KAFKA_BOOTSTRAP="
                            + settings.bootstrap()
                            + ": using that cluster, not starting one.");
            return;
        }
        settings.requireDist();
        List<Topology.Host> hosts = hosts();
        KafkaSecurity security = settings.kafkaSecurity();
        if (secure && !security.enabled()) {
            for (Topology.Host host : hosts) {
                if (Files.exists(metaProperties(host))) {
                    throw new KfpException(
                            "--secure: the broker's storage "
                                    + metaProperties(host).getParent()
                                    + " was formatted without users, and SCRAM users are made only at format time."
                                    + " Stop it ('kfp kafka stop') and remove that directory (its topics go with it), or use another KFP_RUN_DIR.");
                }
            }
            security.create(
                    hosts.stream().map(KfpSettings::address).toList(),
                    KafkaSecurity.users(JobCatalog.jobNames(settings.repo())));
        }
        String clusterId = clusterId();
        for (int i = 0; i < hosts.size(); i++) {
            startNode(hosts.get(i), i + 1, clusterId);
        }
        for (Topology.Host host : hosts) {
            processes(host)
                    .awaitPort(
                            KfpSettings.address(host),
                            settings.kafkaPort(),
                            "Kafka" + on(host),
                            NAME,
                            log(host).resolve("kafka.out"),
                            Duration.ofSeconds(90));
        }
        out.println(
                "Kafka ready on "
                        + settings.bootstrap()
                        + " (data: "
                        + settings.hostRun(hosts.get(0)).resolve("kafka-data")
                        + (hosts.size() > 1 ? " and on the other kafka hosts" : "")
                        + ")");
        if (security.enabled()) {
            out.println(
                    "  SASL_SSL, SCRAM users "
                            + String.join(
                                    ", ", KafkaSecurity.users(JobCatalog.jobNames(settings.repo())))
                            + " (passwords in "
                            + security.dir().resolve("users")
                            + "), ACLs enforced: grant each job its own with 'kfp acls JOB --grant'."
                            + " Admin client settings: "
                            + security.adminProperties());
        }
    }

    /** Starts one node; {@code nodeId} is its place among the kafka hosts, from 1. */
    public void startNode(Topology.Host host, int nodeId, String clusterId) {
        Processes processes = processes(host);
        OptionalLong running = processes.running(NAME);
        if (running.isPresent()) {
            out.println("kafka" + on(host) + " already running (pid " + running.getAsLong() + ")");
            return;
        }
        if (host == null) {
            Processes.requireFreePort(settings.kafkaPort(), "KFP_KAFKA_PORT");
            Processes.requireFreePort(settings.controllerPort(), "KFP_CONTROLLER_PORT");
        }
        Path dir = settings.hostRun(host).resolve("kafka");
        Path properties = dir.resolve("server.properties");
        try {
            Files.createDirectories(dir);
            Files.createDirectories(log(host));
            Files.writeString(properties, properties(host, nodeId));
            Files.copy(
                    settings.home().resolve("conf/kafka/log4j2.properties"),
                    dir.resolve("log4j2.properties"),
                    StandardCopyOption.REPLACE_EXISTING);
            if (!Files.exists(metaProperties(host))) {
                format(host, properties, clusterId);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = java(host);
        command.add("kafka.Kafka");
        command.add(properties.toString());
        processes.start(NAME, log(host).resolve("kafka.out"), command, settings.hostRun(host));
    }

    public void stop() {
        // All nodes at once: a node stopped after the others waits for a controller quorum that is
        // gone.
        Processes.allAtOnce(hosts(), host -> processes(host).stop(NAME));
    }

    public void status() {
        for (Topology.Host host : hosts()) {
            String address =
                    host == null
                            ? settings.bootstrap()
                            : host.address() + ":" + settings.kafkaPort();
            KafkaSecurity security = settings.kafkaSecurity();
            out.println(
                    processes(host)
                            .describe(
                                    NAME,
                                    "kafka" + on(host),
                                    address
                                            + (security.enabled()
                                                    ? " (SASL_SSL, SCRAM-SHA-512, ACLs; admin settings "
                                                            + security.adminProperties()
                                                            + ")"
                                                    : "")));
        }
    }

    /**
     * The node on {@code hostName}: kill -9, or a graceful stop and start (the rolling restart).
     */
    public void kill(Topology.Host host) {
        processes(host).kill(NAME);
    }

    public void restart(Topology.Host host) {
        int nodeId = hosts().indexOf(host) + 1;
        processes(host).stop(NAME);
        startNode(host, nodeId, clusterId());
        processes(host)
                .awaitPort(
                        KfpSettings.address(host),
                        settings.kafkaPort(),
                        "Kafka" + on(host),
                        NAME,
                        log(host).resolve("kafka.out"),
                        Duration.ofSeconds(90));
    }

    private Path metaProperties(Topology.Host host) {
        return settings.hostRun(host).resolve("kafka-data").resolve("meta.properties");
    }

    private String properties(Topology.Host host, int nodeId) throws IOException {
        String node = node(host, nodeId);
        KafkaSecurity security = settings.kafkaSecurity();
        if (!security.enabled()) {
            return node;
        }
        return node
                + "\n"
                + settings.fill(
                                Files.readString(
                                        settings.home().resolve("conf/kafka/sasl-ssl.properties")),
                                host)
                        .replace("@KFP_SECURITY_DIR@", security.dir().toString())
                        .replace("@KFP_SUPER_USERS@", KafkaSecurity.SUPER_USERS);
    }

    private String node(Topology.Host host, int nodeId) throws IOException {
        if (host == null) {
            return settings.fill(
                    Files.readString(settings.home().resolve("conf/kafka/server.properties")));
        }
        List<Topology.Host> kafka = settings.topology().with(Topology.Role.KAFKA);
        List<String> voters = new ArrayList<>();
        for (int i = 0; i < kafka.size(); i++) {
            voters.add((i + 1) + "@" + kafka.get(i).address() + ":" + settings.controllerPort());
        }
        int replication = Math.min(3, kafka.size());
        return settings.fill(
                        Files.readString(settings.home().resolve("conf/kafka/cluster.properties")),
                        host)
                .replace("@KFP_NODE_ID@", String.valueOf(nodeId))
                .replace("@KFP_VOTERS@", String.join(",", voters))
                .replace("@KFP_REPLICATION@", String.valueOf(replication))
                .replace("@KFP_MIN_ISR@", String.valueOf(Math.max(1, replication - 1)));
    }

    /**
     * One cluster id for all nodes, made once and kept in the run directory: a node formatted with
     * another id would refuse to join.
     */
    public String clusterId() {
        Path file = settings.run().resolve("kafka-cluster-id");
        try {
            if (!Files.exists(file)) {
                Files.createDirectories(file.getParent());
                Files.writeString(file, Uuid.randomUuid() + "\n");
            }
            return Files.readString(file).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Formats the storage directory, as kafka-storage.sh format does (--standalone on one host).
     */
    private void format(Topology.Host host, Path properties, String clusterId) throws IOException {
        List<String> command = new ArrayList<>(java(host));
        if (settings.kafkaSecurity().enabled()) {
            // Ours, which adds the SCRAM users without their passwords on a command line.
            command.set(
                    command.indexOf("-cp") + 1,
                    command.get(command.indexOf("-cp") + 1)
                            + ":"
                            + settings.ownClasspath()
                            + ":"
                            + settings.dist().resolve("kfp").resolve("lib")
                            + "/*");
            command.addAll(
                    List.of(
                            StorageFormat.class.getName(),
                            settings.run().toString(),
                            String.join(
                                    ",",
                                    KafkaSecurity.users(JobCatalog.jobNames(settings.repo())))));
        } else {
            command.add("kafka.tools.StorageTool");
        }
        command.addAll(List.of("format", "-t", clusterId, "-c", properties.toString()));
        if (host == null) {
            command.add("--standalone");
        }
        Path log = log(host).resolve("format.log");
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        if (process.isAlive() || process.exitValue() != 0) {
            Processes.tail(log, 10).forEach(err::println);
            throw new KfpException(
                    "formatting the broker's storage" + on(host) + " failed: " + log);
        }
    }

    private List<String> java(Topology.Host host) {
        Path dir = settings.hostRun(host).resolve("kafka");
        return settings.java(
                List.of(
                        host == null ? "-Xmx1g" : "-Xmx512m",
                        "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"),
                        "-Dkafka.logs.dir=" + log(host)),
                "-cp",
                settings.dist().resolve("kafka").resolve("libs") + "/*");
    }

    private Processes processes(Topology.Host host) {
        return settings.processes(host, out, err);
    }

    private Path log(Topology.Host host) {
        return settings.hostRun(host).resolve("log").resolve("kafka");
    }

    private static String on(Topology.Host host) {
        return host == null ? "" : " on " + host.name();
    }
}
