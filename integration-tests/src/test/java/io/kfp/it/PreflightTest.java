package io.kfp.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.testing.MiniClusters;
import io.kfp.relay.RelayJob;
import io.kfp.testkit.EmbeddedJobs;
import io.kfp.testkit.KafkaExtension;
import io.kfp.testkit.KafkaTopics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay's main, against a real broker that would refuse it: exit 2, a clear message, no job.
 */
class PreflightTest {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    @BeforeAll
    static void topics() throws Exception {
        KAFKA.kafka().createTopics(2, "pf-in", "pf-out");
    }

    private record Result(int exitCode, String err, JobClient job) {}

    private static Result relayMain(String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--source.topics",
                                "pf-in",
                                "--sink.topic",
                                "pf-out",
                                "--checkpoint.dir",
                                "target/it-checkpoints/preflight"));
        args.addAll(List.of(extra));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        EmbeddedJobs.Submitted submitted =
                EmbeddedJobs.submit(
                        RelayJob.SPEC,
                        args.toArray(String[]::new),
                        System.out,
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(
                submitted.exitCode(), err.toString(StandardCharsets.UTF_8), submitted.client());
    }

    /**
     * Jobs of the relay's default name: the refused submissions would be these (other tests name
     * theirs).
     */
    private static List<String> relayJobs(ClusterClient<?> cluster) throws Exception {
        return cluster.listJobs().get(30, TimeUnit.SECONDS).stream()
                .map(JobStatusMessage::getJobName)
                .filter("relay-job"::equals)
                .toList();
    }

    @Test
    void aTransactionTimeoutAboveTheBrokersMaximumIsRefusedBeforeSubmission(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        Result r = relayMain("--sink.transaction-timeout", "2 h");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .contains("sink.transaction-timeout is 2 h (7200000 ms)")
                .contains("transaction.max.timeout.ms is 3600000 (1 h)")
                .contains("lower sink.transaction-timeout to at most 1 h")
                .contains("raise transaction.max.timeout.ms on every broker to at least 7200000")
                .doesNotContain("\tat ");
        assertThat(relayJobs(cluster)).as("jobs submitted").isEmpty();
    }

    @Test
    void aYoungOpenTransactionOfTheSamePrefixWarnsOfASecondCopyAndTheJobStillStarts()
            throws Exception {
        // What a running copy of the job leaves on the broker: a transaction of its prefix, open
        // now.
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
        props.setProperty("transactional.id", "kfp.pf-twice.default-0-1");
        try (KafkaProducer<byte[], byte[]> copy =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            copy.initTransactions();
            copy.beginTransaction();
            copy.send(new ProducerRecord<>("pf-out", "x".getBytes(StandardCharsets.UTF_8))).get();

            Result r = relayMain("--job.name", "pf-twice");
            try {
                assertThat(r.exitCode()).as(r.err()).isZero();
                assertThat(r.err())
                        .contains(
                                "relay-job: warning: 1 transaction of prefix kfp.pf-twice.default began less than",
                                "(kfp.pf-twice.default-0-1): another copy of this job may be running");
            } finally {
                if (r.job() != null) {
                    r.job().cancel().get(30, TimeUnit.SECONDS);
                }
            }
        }
        // Without such a transaction: no warning.
        Result clean = relayMain("--job.name", "pf-alone");
        try {
            assertThat(clean.exitCode()).isZero();
            assertThat(clean.err()).doesNotContain("another copy of this job");
        } finally {
            if (clean.job() != null) {
                clean.job().cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aRecordTooLargeForTheProducerFailsTheRelayAtOnceNamingIt() throws Exception {
        KAFKA.kafka().createTopics(1, "pf-big-in", "pf-big-out");
        KafkaTopics.produce(
                KAFKA.bootstrapServers(),
                List.of(new ProducerRecord<>("pf-big-in", 0, null, new byte[3000])));
        Result r =
                relayMain(
                        "--job.name",
                        "pf-big",
                        "--source.topics",
                        "pf-big-in",
                        "--sink.topic",
                        "pf-big-out",
                        "--source.starting-offsets",
                        "earliest",
                        "--kafka.properties.max.request.size",
                        "2000");
        assertThat(r.exitCode()).as(r.err()).isZero();
        // Restarts (10, backing off up to a minute) would keep it running for minutes; it fails at
        // once instead.
        Throwable failure =
                Assertions.catchThrowable(
                        () -> r.job().getJobExecutionResult().get(2, TimeUnit.MINUTES));
        assertThat(ExceptionUtils.stringifyException(failure))
                .contains(
                        "the record read from pf-big-in-0 offset 0 for topic 'pf-big-out' is ",
                        "above its max.request.size (2000 bytes)",
                        "sink.unwritable-records=skip");
        assertThat(r.job().getJobStatus().get(30, TimeUnit.SECONDS)).isEqualTo(JobStatus.FAILED);
    }

    /**
     * What the output topic itself refuses - a record above its max.message.bytes, a timestamp
     * outside its message.timestamp.after.max.ms (a time in microseconds taken as milliseconds) -
     * would abort the transaction at every restart. The relay reads the topic's limits when it
     * starts: it fails at once naming the record and the setting, or with skip leaves the record
     * out and relays the rest.
     */
    @Test
    void aRecordTheOutputTopicRefusesFailsTheRelayAtOnceOrIsSkipped() throws Exception {
        KAFKA.kafka().createTopics(1, "pf-mmb-in", "pf-mmb-out", "pf-ts-in", "pf-ts-out");
        try (Admin admin = KAFKA.kafka().admin()) {
            admin.incrementalAlterConfigs(
                            Map.of(
                                    topic("pf-mmb-out"),
                                    List.of(set(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "2000")),
                                    topic("pf-ts-in"),
                                    List.of(
                                            set(
                                                    TopicConfig
                                                            .MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
                                                    String.valueOf(Long.MAX_VALUE))),
                                    topic("pf-ts-out"),
                                    List.of(
                                            set(
                                                    TopicConfig
                                                            .MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
                                                    "3600000"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        KafkaTopics.produce(
                KAFKA.bootstrapServers(),
                List.of(new ProducerRecord<>("pf-mmb-in", 0, null, new byte[3000])));
        Result big =
                relayMain(
                        "--job.name",
                        "pf-mmb",
                        "--source.topics",
                        "pf-mmb-in",
                        "--sink.topic",
                        "pf-mmb-out",
                        "--source.starting-offsets",
                        "earliest");
        assertThat(big.exitCode()).as(big.err()).isZero();
        try {
            Throwable failure =
                    Assertions.catchThrowable(
                            () -> big.job().getJobExecutionResult().get(2, TimeUnit.MINUTES));
            assertThat(ExceptionUtils.stringifyException(failure))
                    .contains(
                            "the record read from pf-mmb-in-0 offset 0 for topic 'pf-mmb-out' is ",
                            "above the topic's max.message.bytes (2000 bytes)",
                            "sink.unwritable-records=skip");
            assertThat(big.job().getJobStatus().get(30, TimeUnit.SECONDS))
                    .isEqualTo(JobStatus.FAILED);
        } finally {
            // A relay still restarting (the check broken) would hold the slots the next test needs.
            if (!big.job().getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                big.job().cancel().get(30, TimeUnit.SECONDS);
            }
        }

        long now = System.currentTimeMillis();
        KafkaTopics.produce(
                KAFKA.bootstrapServers(),
                List.of(
                        new ProducerRecord<>(
                                "pf-ts-in", 0, now * 1000, null, "micros".getBytes(UTF_8)),
                        new ProducerRecord<>("pf-ts-in", 0, now, null, "millis".getBytes(UTF_8))));
        Result skipping =
                relayMain(
                        "--job.name",
                        "pf-ts",
                        "--source.topics",
                        "pf-ts-in",
                        "--sink.topic",
                        "pf-ts-out",
                        "--source.starting-offsets",
                        "earliest",
                        "--sink.unwritable-records",
                        "skip");
        assertThat(skipping.exitCode()).as(skipping.err()).isZero();
        try {
            CommonTestUtils.waitUtil(
                    () ->
                            !KafkaTopics.readAll(KAFKA.bootstrapServers(), "pf-ts-out", true)
                                    .isEmpty(),
                    Duration.ofMinutes(2),
                    "the relay committed nothing to pf-ts-out");
            assertThat(
                            KafkaTopics.readAll(KAFKA.bootstrapServers(), "pf-ts-out", true)
                                    .stream()
                                    .map(r -> new String(r.value(), UTF_8)))
                    .containsExactly("millis");
            assertThat(skipping.job().getJobStatus().get(30, TimeUnit.SECONDS))
                    .isEqualTo(JobStatus.RUNNING);
        } finally {
            skipping.job().cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A running job holds the lease of its group and of its prefix on the broker, idle or not:
     * another job - under another name here, sharing only an explicit transactional-id prefix - is
     * refused at its start, with the holder named; once the first is cancelled, it starts.
     */
    @Test
    void aSecondCopyIsRefusedWhateverItsNameAndHowIdle(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        KAFKA.kafka().createTopics(1, "pf-copy-in", "pf-copy-out");
        String[] topics = {"--source.topics", "pf-copy-in", "--sink.topic", "pf-copy-out"};
        Result first = relayMain(args("pf-copy-a", topics));
        assertThat(first.exitCode()).as(first.err()).isZero();
        try (Admin admin = KAFKA.kafka().admin()) {
            CommonTestUtils.waitUtil(
                    () -> {
                        try {
                            return !admin.describeConsumerGroups(
                                            List.of("kfp-lease.transactional-id.pf-copy"))
                                    .all()
                                    .get(10, TimeUnit.SECONDS)
                                    .get("kfp-lease.transactional-id.pf-copy")
                                    .members()
                                    .isEmpty();
                        } catch (Exception e) {
                            return false;
                        }
                    },
                    Duration.ofMinutes(1),
                    "the running relay holds no lease of its prefix");
        }
        try {
            Result second = relayMain(args("pf-copy-b", topics));
            assertThat(second.exitCode()).as(second.err()).isEqualTo(2);
            assertThat(second.err())
                    .contains(
                            "sink.transactional-id-prefix = \"pf-copy\"",
                            "another copy of this job is running with transactional-id prefix"
                                    + " pf-copy (kfp-lease.pf-copy-a on /127.0.0.1 in consumer"
                                    + " group kfp-lease.transactional-id.pf-copy",
                            "job.instance-id")
                    .doesNotContain("consumer group kfp.pf-copy-b");
            assertThat(cluster.listJobs().get(30, TimeUnit.SECONDS))
                    .extracting(JobStatusMessage::getJobName)
                    .doesNotContain("pf-copy-b");
        } finally {
            first.job().cancel().get(30, TimeUnit.SECONDS);
        }
        CommonTestUtils.waitUtil(
                () -> first.job().getJobStatus().join() == JobStatus.CANCELED,
                Duration.ofMinutes(1),
                "the first relay was not cancelled");
        Result after = relayMain(args("pf-copy-b", topics));
        try {
            assertThat(after.exitCode()).as("the lease ends with the job\n" + after.err()).isZero();
        } finally {
            if (after.job() != null) {
                after.job().cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static String[] args(String name, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of("--job.name", name, "--sink.transactional-id-prefix", "pf-copy"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static ConfigResource topic(String name) {
        return new ConfigResource(ConfigResource.Type.TOPIC, name);
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    @Test
    void aMissingTopicIsNamedWithHowToCreateIt(@InjectClusterClient ClusterClient<?> cluster)
            throws Exception {
        Result r = relayMain("--source.topics", "pf-typo");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .contains("the input topic 'pf-typo' does not exist", "--create --topic pf-typo");
        assertThat(relayJobs(cluster)).isEmpty();
    }

    @Test
    void unreachableServersFailWithinThePreflightTimeout() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        long start = System.nanoTime();
        Result r =
                relayMain(
                        "--kafka.bootstrap-servers",
                        "127.0.0.1:" + port,
                        "--preflight.timeout",
                        "2 s");
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .contains("no Kafka broker answered within 2 s (tried 127.0.0.1:" + port + ")");
        // Bounded by preflight.timeout (plus closing the client), not by Kafka's 60 s defaults.
        assertThat(seconds).isLessThan(15);
    }
}
