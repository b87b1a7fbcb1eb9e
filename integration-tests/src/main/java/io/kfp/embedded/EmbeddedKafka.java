package io.kfp.embedded;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka 4.2 broker in this JVM: one node in combined KRaft mode (broker and controller),
 * on a free loopback port, its data in a directory removed on close. Configured for one node
 * (replication factors 1) and for our exactly-once sinks (transactions up to an hour).
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** Admits our sinks' 15 min default with room for tests that raise it. */
    public static final long TRANSACTION_MAX_TIMEOUT_MS = Duration.ofHours(1).toMillis();

    private final KafkaClusterTestKit cluster;

    private EmbeddedKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** Starts a broker with its data under {@code parentDir}; returns once it serves requests. */
    public static EmbeddedKafka start(Path parentDir) throws Exception {
        return start(parentDir, Map.of());
    }

    /** Like {@link #start(Path)}, with broker settings added or overridden. */
    public static EmbeddedKafka start(Path parentDir, Map<String, String> brokerSettings) throws Exception {
        Files.createDirectories(parentDir);
        Path dataDir = Files.createTempDirectory(parentDir.toAbsolutePath(), "kafka-");
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("transaction.state.log.num.partitions", "4");
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", "4");
        settings.put("group.initial.rebalance.delay.ms", "0");
        settings.put("transaction.max.timeout.ms", String.valueOf(TRANSACTION_MAX_TIMEOUT_MS));
        // Keep everything: data with old timestamps would otherwise be deleted under the jobs.
        settings.put("log.retention.ms", "-1");
        // Topics are created on purpose, so a misspelt topic is an error, not a new topic.
        settings.put("auto.create.topics.enable", "false");
        settings.putAll(brokerSettings);

        KafkaClusterTestKit.Builder builder =
                new KafkaClusterTestKit.Builder(
                        new TestKitNodes.Builder()
                                // What a freshly formatted 4.2 broker runs, not the test kit's
                                // newest unreleased metadata version.
                                .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
                                .setCombined(true)
                                .setNumBrokerNodes(1)
                                .setNumControllerNodes(1)
                                .setBaseDirectory(dataDir)
                                .build());
        settings.forEach(builder::setConfigProp);
        KafkaClusterTestKit cluster = builder.setDeleteOnClose(true).build();
        try {
            formatQuietly(cluster);
            cluster.startup();
            cluster.waitForReadyBrokers();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return new EmbeddedKafka(cluster);
    }

    /** Kafka's storage formatter prints its bootstrap records to stdout; nobody needs them. */
    private static void formatQuietly(KafkaClusterTestKit cluster) throws Exception {
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            cluster.format();
        } finally {
            System.setOut(stdout);
        }
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /**
     * The ports the broker and its controller listen on. On every interface, not only loopback:
     * Kafka's test kit binds them before the broker starts, without a host.
     */
    public List<Integer> ports() {
        List<Integer> ports = new ArrayList<>();
        for (String servers : List.of(cluster.bootstrapServers(), cluster.bootstrapControllers())) {
            for (String hostPort : servers.split(",")) {
                ports.add(Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)));
            }
        }
        return ports;
    }

    /** An admin client for this broker; close it. */
    public Admin admin() {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrapServers());
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
            if (allLed(admin, topics)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("partitions of " + topics + " have no leader after 30 s");
            }
            Thread.sleep(50);
        }
    }

    /** Whether every partition has a leader; a topic the broker does not know yet has none. */
    private static boolean allLed(Admin admin, List<String> topics) throws Exception {
        try {
            return admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values().stream()
                    .flatMap(d -> d.partitions().stream())
                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return false; // created, but its metadata has not reached the broker's cache yet
            }
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
