package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.testing.MiniClusters;
import io.kfp.relay.RelayJob;
import io.kfp.testkit.EmbeddedJobs;
import io.kfp.testkit.KafkaExtension;
import io.kfp.testkit.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Where the relay starts and what it commits to its consumer group, on a real broker. */
class OffsetsTest {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    static final int RECORDS = 1_000;
    static final int PARTITIONS = 4;
    static final long T0 =
            (System.currentTimeMillis() - Duration.ofHours(1).toMillis()) / 1000 * 1000;

    /** RECORDS records round-robin over the partitions, value = index, timestamps T0 + index ms. */
    private static void produce(String topic) throws Exception {
        KAFKA.kafka().createTopics(PARTITIONS, topic, topic + "-out");
        KafkaTopics.produce(KAFKA.bootstrapServers(), records(topic, 0, RECORDS));
    }

    /**
     * Records {@code from} to {@code to} (exclusive): round-robin, value = index, at T0 + index.
     */
    private static List<ProducerRecord<byte[], byte[]>> records(String topic, int from, int to) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            records.add(
                    new ProducerRecord<>(
                            topic,
                            i % PARTITIONS,
                            T0 + i,
                            null,
                            String.valueOf(i).getBytes(StandardCharsets.UTF_8)));
        }
        return records;
    }

    private static JobClient relay(String topic, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--source.topics",
                                topic,
                                "--sink.topic",
                                topic + "-out",
                                "--source.group-id",
                                topic + "-group",
                                "--job.instance-id",
                                topic,
                                "--job.parallelism",
                                "2",
                                "--checkpoint.dir",
                                "target/it-checkpoints/offsets"));
        args.addAll(List.of(extra));
        if (!args.contains("--sink.delivery-guarantee")) {
            args.addAll(List.of("--sink.delivery-guarantee", "at-least-once"));
        }
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        RelayJob.SPEC, args.toArray(String[]::new), System.out, System.err);
        assertThat(s.exitCode()).isZero();
        return s.client();
    }

    private static long committedOffsets(String group) throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS);
            return offsets.values().stream()
                    .filter(o -> o != null)
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        }
    }

    private static List<String> output(String topic) {
        List<String> values = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r :
                KafkaTopics.readAll(KAFKA.bootstrapServers(), topic + "-out", true)) {
            values.add(new String(r.value(), StandardCharsets.UTF_8));
        }
        return values;
    }

    @Test
    void withCheckpointingGroupOffsetsAdvanceOnlyWhenACheckpointCompletes(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        produce("ck");
        // No periodic checkpoint within the test: only the one it triggers.
        JobClient job = relay("ck", "--checkpoint.interval", "1 h");
        CommonTestUtils.waitUtil(
                () -> output("ck").size() >= RECORDS,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "every record relayed");
        assertThat(committedOffsets("ck-group")).as("committed before any checkpoint").isZero();

        cluster.triggerCheckpoint(job.getJobID(), CheckpointType.FULL).get(1, TimeUnit.MINUTES);
        CommonTestUtils.waitUtil(
                () -> uncheckedOffsets("ck-group") == RECORDS,
                Duration.ofSeconds(30),
                Duration.ofMillis(100),
                "offsets committed after the checkpoint");
        job.cancel().get(1, TimeUnit.MINUTES);
    }

    @Test
    void withoutCheckpointingTheConsumersAutoCommitAdvancesThem() throws Exception {
        produce("ac");
        JobClient job =
                relay(
                        "ac",
                        "--checkpoint.enabled",
                        "false",
                        "--source.auto-commit-interval",
                        "200 ms");
        CommonTestUtils.waitUtil(
                () -> output("ac").size() >= RECORDS,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "every record relayed");
        CommonTestUtils.waitUtil(
                () -> uncheckedOffsets("ac-group") == RECORDS,
                Duration.ofSeconds(30),
                Duration.ofMillis(100),
                "auto-committed offsets");
        job.cancel().get(1, TimeUnit.MINUTES);
    }

    @Test
    void startingFromATimestampReadsExactlyTheSuffix() throws Exception {
        produce("ts");
        JobClient job =
                relay(
                        "ts",
                        "--source.bounded",
                        "true",
                        "--source.starting-offsets",
                        "timestamp:" + (T0 + 600));
        job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        List<String> expected = new ArrayList<>();
        for (int i = 600; i < RECORDS; i++) {
            expected.add(String.valueOf(i));
        }
        assertThat(output("ts")).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void startingFromSpecificOffsetsReadsExactlyFromThere() throws Exception {
        produce("so");
        // Partition p holds records p, p+4, p+8, ...: offset k of partition p is record 4k+p.
        Map<Integer, Integer> start = new HashMap<>(Map.of(0, 10, 1, 200, 2, 0));
        JobClient job =
                relay(
                        "so",
                        "--source.bounded",
                        "true",
                        "--source.starting-offsets",
                        "specific:so:0:10,so:1:200,so:2:0",
                        "--source.offset-reset",
                        "latest"); // partition 3, not listed: nothing
        job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            int partition = i % PARTITIONS;
            int offset = i / PARTITIONS;
            if (start.containsKey(partition) && offset >= start.get(partition)) {
                expected.add(String.valueOf(i));
            }
        }
        assertThat(output("so")).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void resumedAtOffsetsRetentionDeletedTheRelaySaysWhatItSkipsOrRefuses(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        produce("rt");
        // Exactly-once: a job that fails as it starts must not leave records behind for the next
        // one to repeat.
        String[] exactlyOnce = {
            "--sink.delivery-guarantee", "exactly-once", "--checkpoint.interval", "1 s"
        };
        JobClient job =
                relay(
                        "rt",
                        concat(
                                exactlyOnce,
                                "--checkpoint.savepoint-dir",
                                "target/it-savepoints/offsets"));
        CommonTestUtils.waitUtil(
                () -> output("rt").size() >= RECORDS,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "every record relayed");
        String savepoint =
                cluster.cancelWithSavepoint(job.getJobID(), null, SavepointFormatType.CANONICAL)
                        .get(1, TimeUnit.MINUTES);
        // Partition p holds records p, p+4, ...: 250 each, checkpointed at offset 250. While the
        // relay is stopped 250 more arrive per partition and retention deletes partition 0 up to
        // offset 400.
        moreRecordsAndRetentionDeletesPartition0UpTo400("rt");

        // none: the relay does not guess, it fails at once naming the partition.
        JobClient refused =
                relay(
                        "rt",
                        concat(
                                exactlyOnce,
                                "--checkpoint.restore-from",
                                savepoint,
                                "--source.offset-reset",
                                "none"));
        assertThatThrownBy(() -> refused.getJobExecutionResult().get(2, TimeUnit.MINUTES))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains(
                                                "rt-0: resuming at offset 250, but retention has deleted everything before offset 400"
                                                        + " (150 offsets)")
                                        .contains("--source.offset-reset earliest"));

        // earliest (the default): it resumes at the oldest record left; nothing else is missed or
        // doubled.
        JobClient resumed =
                relay("rt", concat(exactlyOnce, "--checkpoint.restore-from", savepoint));
        assertOutputOnceCancelled("rt", resumed, leftAfterRetention());
    }

    /**
     * A fresh start from the group's committed offsets (the default, after a cancel) is checked as
     * a resume from a checkpoint is: the connector hands the reader a placeholder for them, which
     * the consumer would otherwise resolve to its reset position without a word.
     */
    @Test
    void startedFromGroupOffsetsRetentionDeletedTheRelaySaysWhatItSkipsOrRefuses()
            throws Exception {
        produce("gr");
        // Exactly-once: the subtask that may start reading before the other refuses leaves
        // nothing behind for the next run to repeat.
        String[] exactlyOnce = {
            "--sink.delivery-guarantee", "exactly-once", "--checkpoint.interval", "1 s"
        };
        JobClient job = relay("gr", exactlyOnce);
        CommonTestUtils.waitUtil(
                () -> uncheckedOffsets("gr-group") == RECORDS,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "every offset committed");
        job.cancel().get(1, TimeUnit.MINUTES);
        // Committed at offset 250 of each partition; 250 more arrive per partition and retention
        // deletes partition 0 up to offset 400 while nothing runs.
        moreRecordsAndRetentionDeletesPartition0UpTo400("gr");

        JobClient refused = relay("gr", concat(exactlyOnce, "--source.offset-reset", "none"));
        assertThatThrownBy(() -> refused.getJobExecutionResult().get(2, TimeUnit.MINUTES))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains(
                                                "gr-0: resuming at offset 250, but retention has deleted everything before offset 400"
                                                        + " (150 offsets)")
                                        .doesNotContain("gr-1:"));

        JobClient resumed = relay("gr", exactlyOnce);
        assertOutputOnceCancelled("gr", resumed, leftAfterRetention());
    }

    /** RECORDS more records, and retention deleting partition 0 before offset 400. */
    private static void moreRecordsAndRetentionDeletesPartition0UpTo400(String topic)
            throws Exception {
        KafkaTopics.produce(KAFKA.bootstrapServers(), records(topic, RECORDS, 2 * RECORDS));
        try (Admin admin = KAFKA.kafka().admin()) {
            admin.deleteRecords(
                            Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(400)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** Once {@code job} has written as many records as expected: cancels it, then compares. */
    private static void assertOutputOnceCancelled(
            String topic, JobClient job, List<String> expected) throws Exception {
        CommonTestUtils.waitUtil(
                () -> output(topic).size() >= expected.size(),
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "the relay to catch up");
        job.cancel().get(1, TimeUnit.MINUTES);
        assertThat(output(topic)).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Every record of both batches but those retention deleted. */
    private static List<String> leftAfterRetention() {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 2 * RECORDS; i++) {
            boolean deleted = i >= RECORDS && i % PARTITIONS == 0 && (i / PARTITIONS) < 400;
            if (!deleted) {
                expected.add(String.valueOf(i));
            }
        }
        return expected;
    }

    private static String[] concat(String[] first, String... more) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static long uncheckedOffsets(String group) {
        try {
            return committedOffsets(group);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
