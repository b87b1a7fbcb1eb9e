package io.kfp.testkit;

import io.kfp.common.kafka.TlsCertificates;
import io.kfp.ops.offsets.PartitionLeaders;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka 4.2 broker in this JVM: one node in combined KRaft mode (broker and controller),
 * both listeners on free ports of 127.0.0.1 only (nothing beyond this machine reaches them), its
 * data in a directory removed on close. Configured for one node (replication factors 1) and for our
 * exactly-once sinks (transactions up to an hour). Formatted and started with Kafka's own storage
 * formatter and server class, as {@code kafka-storage.sh format} and {@code kafka-server-start.sh}
 * do. (Kafka's test kit would bind the listeners on every interface.)
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Admits our sinks' 15 min default with room for tests that raise it. */
    public static final long TRANSACTION_MAX_TIMEOUT_MS = Duration.ofHours(1).toMillis();

    private static final int NODE_ID = 1;

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    /** The super user of a broker started {@link #startWithUsers with users}. */
    public static final String ADMIN = "admin";

    private final KafkaRaftServer server;
    private final Path dataDir;
    private final int brokerPort;
    private final int controllerPort;

    /** The admin's client settings besides the bootstrap server; none without users. */
    private final Properties adminClient = new Properties();

    private EmbeddedKafka(
            KafkaRaftServer server, Path dataDir, int brokerPort, int controllerPort) {
        this.server = server;
        this.dataDir = dataDir;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
    }

    /** Starts a broker with its data under {@code parentDir}; returns once it serves requests. */
    public static EmbeddedKafka start(Path parentDir) throws Exception {
        return start(parentDir, Map.of());
    }

    /** Like {@link #start(Path)}, with broker settings added or overridden. */
    public static EmbeddedKafka start(Path parentDir, Map<String, String> brokerSettings)
            throws Exception {
        return start(parentDir, brokerSettings, null);
    }

    /**
     * A broker that encrypts, authenticates and authorizes, as production ones do: its client
     * listener is SASL_SSL (TLS with a certificate {@link TlsCertificates} made for this start)
     * with SCRAM-SHA-512 for these users (name to password, created when the storage is formatted)
     * and {@link #ADMIN} (password {@code adminPassword}, the super user {@link #admin()} uses);
     * Kafka's StandardAuthorizer allows nothing without an ACL. The controller listener stays
     * PLAINTEXT on loopback, its anonymous broker-to-controller principal a super user. {@link
     * #clientOf} gives a user's client settings.
     */
    public static EmbeddedKafka startWithUsers(
            Path parentDir, String adminPassword, Map<String, String> users) throws Exception {
        return start(parentDir, Map.of(), new Users(adminPassword, users));
    }

    private record Users(String adminPassword, Map<String, String> passwords) {
        static final String MECHANISM = "SCRAM-SHA-512";

        List<String> scramArguments() {
            List<String> arguments = new ArrayList<>();
            arguments.add(MECHANISM + "=[name=" + ADMIN + ",password=" + adminPassword + "]");
            passwords.forEach(
                    (user, password) ->
                            arguments.add(
                                    MECHANISM + "=[name=" + user + ",password=" + password + "]"));
            return arguments;
        }
    }

    /** Where the broker's TLS trust comes from; null without users. */
    private TlsCertificates certificates;

    /**
     * The client settings of {@code user} on a broker with users: SASL_SSL, SCRAM-SHA-512, the test
     * CA trusted.
     */
    public Properties clientOf(String user, String password) {
        Properties props = new Properties();
        props.setProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        props.setProperty(SaslConfigs.SASL_MECHANISM, Users.MECHANISM);
        props.setProperty(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required"
                        + " username=\""
                        + user
                        + "\" password=\""
                        + password
                        + "\";");
        props.setProperty(
                SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certificates.truststore().toString());
        props.setProperty(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        props.setProperty(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, certificates.password());
        return props;
    }

    private static EmbeddedKafka start(
            Path parentDir, Map<String, String> brokerSettings, Users users) throws Exception {
        Files.createDirectories(parentDir);
        Path dataDir = Files.createTempDirectory(parentDir.toAbsolutePath(), "kafka-");
        int brokerPort = freeLoopbackPort();
        int controllerPort = freeLoopbackPort();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("process.roles", "broker,controller");
        settings.put("node.id", String.valueOf(NODE_ID));
        settings.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
        String client = users == null ? "PLAINTEXT" : "SASL_SSL";
        settings.put(
                "listeners",
                client
                        + "://127.0.0.1:"
                        + brokerPort
                        + ",CONTROLLER://127.0.0.1:"
                        + controllerPort);
        settings.put("advertised.listeners", client + "://127.0.0.1:" + brokerPort);
        settings.put("controller.listener.names", "CONTROLLER");
        settings.put("inter.broker.listener.name", client);
        settings.put(
                "listener.security.protocol.map", client + ":" + client + ",CONTROLLER:PLAINTEXT");
        TlsCertificates certificates = null;
        if (users != null) {
            // Beside the data, not in it: the log manager takes every directory in log.dirs for a
            // partition.
            certificates =
                    TlsCertificates.create(
                            Path.of(dataDir + "-tls"), "CN=localhost", List.of("127.0.0.1"), 2);
            settings.put("ssl.keystore.location", certificates.keystore().toString());
            settings.put("ssl.keystore.type", "PKCS12");
            settings.put("ssl.keystore.password", certificates.password());
            settings.put("ssl.key.password", certificates.password());
            settings.put("ssl.truststore.location", certificates.truststore().toString());
            settings.put("ssl.truststore.type", "PKCS12");
            settings.put("ssl.truststore.password", certificates.password());
            settings.put("sasl.enabled.mechanisms", Users.MECHANISM);
            settings.put("sasl.mechanism.inter.broker.protocol", Users.MECHANISM);
            settings.put(
                    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                            + ADMIN
                            + "\" password=\""
                            + users.adminPassword()
                            + "\";");
            settings.put(
                    "authorizer.class.name",
                    "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            settings.put("allow.everyone.if.no.acl.found", "false");
            settings.put("super.users", "User:" + ADMIN + ";User:ANONYMOUS");
        }
        settings.put("log.dirs", dataDir.toString());
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("transaction.state.log.num.partitions", "4");
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", "4");
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        settings.put("transaction.max.timeout.ms", String.valueOf(TRANSACTION_MAX_TIMEOUT_MS));
        // Keep everything: data with old timestamps would otherwise be deleted under the jobs.
        settings.put("log.retention.ms", "-1");
        // Topics are created on purpose, so a misspelt topic is an error, not a new topic.
        settings.put("auto.create.topics.enable", "false");
        settings.putAll(brokerSettings);
        KafkaConfig config = new KafkaConfig(settings, false);

        new Formatter()
                // It prints its bootstrap records; nobody needs them.
                .setPrintStream(
                        new PrintStream(
                                OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(dataDir.toString()))
                .setMetadataLogDirectory(dataDir.toString())
                .setControllerListenerName("CONTROLLER")
                .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                // What a freshly formatted 4.2 broker runs, not the newest unreleased metadata
                // version.
                .setReleaseVersion(MetadataVersion.latestProduction())
                .setScramArguments(users == null ? List.of() : users.scramArguments())
                .run();
        refuseToExitTheJvm();
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        EmbeddedKafka kafka = new EmbeddedKafka(server, dataDir, brokerPort, controllerPort);
        kafka.certificates = certificates;
        if (users != null) {
            kafka.adminClient.putAll(kafka.clientOf(ADMIN, users.adminPassword()));
        }
        try {
            server.startup();
            kafka.awaitReady();
        } catch (Exception e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    /**
     * A Kafka server that meets a fatal fault exits its process; in this JVM that would be the
     * tests' or the embedded runner's. Instead the fault is logged and thrown in the thread that
     * met it, and the broker stops serving.
     */
    private static void refuseToExitTheJvm() {
        Exit.setExitProcedure(
                (code, message) -> {
                    LOG.error(
                            "The embedded Kafka broker met a fatal fault (it would exit with {}): {}",
                            code,
                            message);
                    throw new IllegalStateException(
                            "embedded Kafka broker: fatal fault, exit " + code + ": " + message);
                });
        Exit.setHaltProcedure(
                (code, message) -> {
                    LOG.error(
                            "The embedded Kafka broker met a fatal fault (it would halt with {}): {}",
                            code,
                            message);
                    throw new IllegalStateException(
                            "embedded Kafka broker: fatal fault, halt " + code + ": " + message);
                });
    }

    /**
     * A port free on 127.0.0.1 now. The controller's must be known before it starts (the quorum
     * names it), so both are chosen here; another process taking one in between fails the start.
     */
    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Until the broker has registered with its controller and answers metadata requests. */
    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (Admin admin = admin()) {
            Exception last = null;
            while (System.nanoTime() < deadline) {
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    last = e;
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException(
                    "the embedded broker did not register within 60 s", last);
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** The ports the broker and its controller listen on (127.0.0.1). */
    public List<Integer> ports() {
        return List.of(brokerPort, controllerPort);
    }

    /** An admin client for this broker (its super user, when it has users); close it. */
    public Admin admin() {
        Properties props = new Properties();
        props.putAll(adminClient);
        props.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    /** Creates each topic with {@code partitions} partitions, waiting until they exist. */
    public void createTopics(int partitions, String... topics) throws Exception {
        List<NewTopic> newTopics = new ArrayList<>();
        for (String topic : topics) {
            newTopics.add(new NewTopic(topic, partitions, (short) 1));
        }
        try (Admin admin = admin()) {
            admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
            awaitLeaders(admin, List.of(topics));
        }
    }

    /**
     * Until the broker itself reports a leader for every partition, producers get
     * NotLeaderOrFollower errors, and an idempotent producer retrying those can fail with
     * OutOfOrderSequence.
     */
    private static void awaitLeaders(Admin admin, List<String> topics) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            if (PartitionLeaders.allLed(admin, topics)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "partitions of " + topics + " have no leader after 30 s");
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            server.shutdown();
            server.awaitShutdown();
        } finally {
            deleteRecursively(dataDir);
            deleteRecursively(Path.of(dataDir + "-tls"));
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
