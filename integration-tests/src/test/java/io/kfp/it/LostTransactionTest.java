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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A relay resumed after its pre-committed transaction is gone. Each relay is cancelled with a
 * savepoint while records flow: an intermediate savepoint commits nothing (Flink 1.15+), so its
 * transaction stays open until the job resumes and commits it. Resumed only after the broker has
 * aborted it at sink.transaction-timeout, the connector alone would go on without its records;
 * resumed after the broker also forgot the id (transactional.id.expiration.ms, 15 s here), it would
 * fail over forever. Both must end in a decision instead. Last, the restore the connector cannot
 * do: a savepoint written with pooling naming resumed with incrementing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LostTransactionTest {

    @RegisterExtension
    static final KafkaExtension KAFKA =
            new KafkaExtension(
                    Map.of(
                            "transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000",
                            "transactional.id.expiration.ms", "15000",
                            "transaction.remove.expired.transaction.cleanup.interval.ms", "1000"));

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    /**
     * The shortest timeout validation admits for these checkpoints, none of which may fail: 3 s
     * interval + 0.5 s pause + 8 s checkpoint timeout + 1 min margin. The broker aborts a
     * transaction this long after it began.
     */
    static final String TRANSACTION_TIMEOUT = "72 s";

    /**
     * A relay cancelled with a savepoint whose transaction was still open: what it read and where
     * it stopped.
     */
    record Stopped(String name, String savepoint, Set<String> input) {
        String prefix() {
            return "kfp.relay-job." + name;
        }
    }

    static Stopped aborted;
    static Stopped forgotten;

    /**
     * Why no two jobs' transactional-id prefixes may start one another (JobOwnership): a sink with
     * pooling names, as it starts, aborts every open transaction on its topic whose id starts with
     * its prefix - here one of a job with instance id lt-pp-2 beside the relay's lt-pp.
     */
    @Test
    @Order(4)
    void aPoolingSinkAbortsTheOpenTransactionsOfALongerPrefix() throws Exception {
        String name = "lt-pp";
        KAFKA.kafka().createTopics(2, name + "-in", name + "-out");
        String otherPrefix = "kfp.relay-job." + name + "-2";
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
        props.setProperty("transactional.id", otherPrefix + "-0-0");
        try (KafkaProducer<byte[], byte[]> other =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            other.initTransactions();
            other.beginTransaction();
            other.send(new ProducerRecord<>(name + "-out", 0, null, utf8("the other job's record")))
                    .get(30, TimeUnit.SECONDS);
            assertThat(transactionStates(otherPrefix)).containsExactly(TransactionState.ONGOING);

            JobClient relay = relay(name, "--sink.transaction-naming", "pooling");
            CommonTestUtils.waitUtil(
                    () ->
                            transactionStates(otherPrefix).stream()
                                    .noneMatch(LostTransactionTest::open),
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "the relay's start to abort the other job's transaction");
            assertThatThrownBy(other::commitTransaction)
                    .as("the other job, fenced")
                    .isInstanceOf(KafkaException.class);
            relay.cancel().get(1, TimeUnit.MINUTES);
        }
        assertThat(KafkaTopics.readAll(KAFKA.bootstrapServers(), name + "-out", true)).isEmpty();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Both relays stopped by the first test, so the broker's clocks run for both at once. */
    static synchronized void cancelTwoRelaysWithSavepoints(ClusterClient<?> cluster)
            throws Exception {
        if (aborted == null) {
            aborted = cancelWithSavepoint(cluster, "lt-aborted");
            forgotten = cancelWithSavepoint(cluster, "lt-forgotten");
        }
    }

    @Test
    @Order(1)
    void resumedAfterTheTransactionTimeoutTheRelayStopsNamingTheLostTransactionOrGoesOnWhenToldTo(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        cancelTwoRelaysWithSavepoints(cluster);
        awaitTransactions(
                aborted,
                "every open transaction aborted by the broker",
                Duration.ofMinutes(3),
                states ->
                        !states.isEmpty() && states.stream().noneMatch(LostTransactionTest::open));
        List<ConsumerRecord<byte[], byte[]>> before =
                KafkaTopics.readAll(KAFKA.bootstrapServers(), aborted.name + "-out", true);

        String failure = failureOf(resume(aborted));
        assertThat(failure)
                .contains("Lost data: transaction " + aborted.prefix() + "-0-")
                .contains("was aborted by the broker")
                .contains("sink.transaction-timeout (72 s)")
                .contains("--sink.lost-transactions accept");
        assertThat(KafkaTopics.readAll(KAFKA.bootstrapServers(), aborted.name + "-out", true))
                .as("nothing written past the gap")
                .hasSameSizeAs(before);

        // Told to accept the loss, it goes on: everything but that transaction's records arrives,
        // once.
        JobClient accepted = resume(aborted, "--sink.lost-transactions", "accept");
        awaitCaughtUp(aborted, accepted);
        List<String> committed =
                values(KafkaTopics.readAll(KAFKA.bootstrapServers(), aborted.name + "-out", true));
        Set<String> written =
                new HashSet<>(
                        values(
                                KafkaTopics.readAll(
                                        KAFKA.bootstrapServers(), aborted.name + "-out", false)));
        Set<String> missing = new HashSet<>(aborted.input);
        missing.removeAll(committed);
        assertThat(accepted.getJobStatus().get(30, TimeUnit.SECONDS)).isEqualTo(JobStatus.RUNNING);
        assertThat(committed).as("duplicates").doesNotHaveDuplicates();
        assertThat(missing).as("the aborted transaction's records").isNotEmpty();
        assertThat(written)
                .as("every missing record was written in a transaction the broker aborted")
                .containsAll(missing);
        System.out.printf(
                "lost transaction accepted: input=%d, committed=%d, missing=%d%n",
                aborted.input.size(), committed.size(), missing.size());
        accepted.cancel().get(1, TimeUnit.MINUTES);
    }

    @Test
    @Order(2)
    void resumedAfterTheBrokerForgotTheTransactionalIdTheRelayStopsInsteadOfFailingOverForever(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        cancelTwoRelaysWithSavepoints(cluster);
        awaitTransactions(
                forgotten,
                "every transactional id of the prefix forgotten",
                Duration.ofMinutes(4),
                List::isEmpty);
        String failure = failureOf(resume(forgotten));
        assertThat(failure)
                .contains("the broker no longer knows transaction " + forgotten.prefix() + "-0-")
                .contains("transactional.id.expiration.ms")
                .contains("If it was taken by stop-with-savepoint, nothing is lost");
    }

    @Test
    @Order(3)
    void aSavepointWrittenWithPoolingNamingIsNotResumedWithIncrementing(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        String name = "lt-pooling";
        KAFKA.kafka().createTopics(2, name + "-in", name + "-out");
        KafkaTopics.produce(
                KAFKA.bootstrapServers(),
                List.of(
                        new ProducerRecord<>(
                                name + "-in", 0, null, "a".getBytes(StandardCharsets.UTF_8)),
                        new ProducerRecord<>(
                                name + "-in", 1, null, "b".getBytes(StandardCharsets.UTF_8))));
        JobClient pooling = relay(name, "--sink.transaction-naming", "pooling");
        CommonTestUtils.waitUtil(
                () ->
                        KafkaTopics.readAll(KAFKA.bootstrapServers(), name + "-out", true).size()
                                == 2,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                name + ": both records relayed");
        String savepoint =
                cluster.stopWithSavepoint(
                                pooling.getJobID(), false, null, SavepointFormatType.CANONICAL)
                        .get(1, TimeUnit.MINUTES);

        String failure = failureOf(relay(name, "--checkpoint.restore-from", savepoint));
        assertThat(failure)
                .contains(
                        "sink.transaction-naming is incrementing, but the checkpoint or savepoint relay-job resumes"
                                + " from was written with pooling")
                .contains("Resume with --sink.transaction-naming pooling");

        JobClient resumed =
                relay(
                        name,
                        "--checkpoint.restore-from",
                        savepoint,
                        "--sink.transaction-naming",
                        "pooling");
        KafkaTopics.produce(
                KAFKA.bootstrapServers(),
                List.of(
                        new ProducerRecord<>(
                                name + "-in", 0, null, "c".getBytes(StandardCharsets.UTF_8))));
        CommonTestUtils.waitUtil(
                () ->
                        KafkaTopics.readAll(KAFKA.bootstrapServers(), name + "-out", true).size()
                                == 3,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                name + ": resumed with pooling, the next record relayed");
        resumed.cancel().get(1, TimeUnit.MINUTES);
    }

    private static Stopped cancelWithSavepoint(ClusterClient<?> cluster, String name)
            throws Exception {
        KAFKA.kafka().createTopics(2, name + "-in", name + "-out");
        AtomicBoolean stop = new AtomicBoolean();
        Set<String> input = ConcurrentHashMap.newKeySet();
        Thread producer =
                new Thread(() -> produceUntil(stop, name + "-in", input), name + "-producer");
        producer.start();
        try {
            JobClient job = relay(name);
            // At least one checkpoint committed, so the savepoint's transaction is not the job's
            // first.
            CommonTestUtils.waitUtil(
                    () ->
                            !KafkaTopics.readAll(KAFKA.bootstrapServers(), name + "-out", true)
                                    .isEmpty(),
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    name + ": first committed output");
            Thread.sleep(1_000);
            String savepoint =
                    cluster.cancelWithSavepoint(job.getJobID(), null, SavepointFormatType.CANONICAL)
                            .get(1, TimeUnit.MINUTES);
            CommonTestUtils.waitUtil(
                    () -> status(job) == JobStatus.CANCELED,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    name + ": cancelled");
            return new Stopped(name, savepoint, input);
        } finally {
            stop.set(true);
            producer.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** Sequence numbers as values, about 500 a second over both partitions, until told to stop. */
    private static void produceUntil(AtomicBoolean stop, String topic, Set<String> sent) {
        try (KafkaProducer<byte[], byte[]> producer =
                KafkaTopics.producer(KAFKA.bootstrapServers())) {
            for (int i = 0; !stop.get(); i++) {
                String value = String.valueOf(i);
                producer.send(
                                new ProducerRecord<>(
                                        topic, i % 2, null, value.getBytes(StandardCharsets.UTF_8)))
                        .get();
                sent.add(value);
                if (i % 10 == 9) {
                    Thread.sleep(20);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("producing to " + topic, e);
        }
    }

    private static JobClient relay(String name, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--source.topics",
                                name + "-in",
                                "--sink.topic",
                                name + "-out",
                                "--job.instance-id",
                                name,
                                "--job.parallelism",
                                "1",
                                "--checkpoint.interval",
                                "3 s",
                                "--checkpoint.timeout",
                                "8 s",
                                "--checkpoint.tolerable-failures",
                                "0",
                                "--sink.transaction-timeout",
                                TRANSACTION_TIMEOUT,
                                "--restart.attempts",
                                "3",
                                "--checkpoint.dir",
                                "target/it-checkpoints/" + name,
                                "--checkpoint.savepoint-dir",
                                "target/it-savepoints/" + name));
        args.addAll(List.of(extra));
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        RelayJob.SPEC, args.toArray(String[]::new), System.out, System.err);
        assertThat(s.exitCode()).isZero();
        return s.client();
    }

    private static JobClient resume(Stopped stopped, String... extra) {
        List<String> args =
                new ArrayList<>(List.of("--checkpoint.restore-from", stopped.savepoint));
        args.addAll(List.of(extra));
        return relay(stopped.name, args.toArray(String[]::new));
    }

    /**
     * The failure the job ended with; fails the test if it does not end FAILED within 2 min (a
     * restart loop).
     */
    private static String failureOf(JobClient job) throws Exception {
        try {
            job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            assertThat(status(job)).isEqualTo(JobStatus.FAILED);
            return ExceptionUtils.stringifyException(e);
        }
        throw new AssertionError("the resumed job finished instead of failing");
    }

    private static void awaitTransactions(
            Stopped stopped, String what, Duration timeout, Predicate<List<TransactionState>> done)
            throws Exception {
        CommonTestUtils.waitUtil(
                () -> done.test(transactionStates(stopped.prefix())),
                timeout,
                Duration.ofMillis(100),
                stopped.name + ": " + what);
    }

    private static boolean open(TransactionState state) {
        return state == TransactionState.ONGOING
                || state == TransactionState.PREPARE_ABORT
                || state == TransactionState.PREPARE_COMMIT;
    }

    private static List<TransactionState> transactionStates(String prefix) {
        try (Admin admin = KAFKA.kafka().admin()) {
            return admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.transactionalId().startsWith(prefix + "-"))
                    .map(TransactionListing::state)
                    .collect(Collectors.toList());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The relay has read every input record and committed its offsets with a checkpoint. */
    private static void awaitCaughtUp(Stopped stopped, JobClient job) throws Exception {
        Map<Integer, Long> end =
                KafkaTopics.endOffsets(KAFKA.bootstrapServers(), stopped.name + "-in", false);
        CommonTestUtils.waitUtil(
                () -> {
                    assertThat(status(job).isGloballyTerminalState())
                            .as("the resumed job ended")
                            .isFalse();
                    try (Admin admin = KAFKA.kafka().admin()) {
                        Map<TopicPartition, OffsetAndMetadata> offsets =
                                admin.listConsumerGroupOffsets(stopped.prefix())
                                        .partitionsToOffsetAndMetadata()
                                        .get(30, TimeUnit.SECONDS);
                        return end.entrySet().stream()
                                .allMatch(
                                        e ->
                                                Optional.ofNullable(
                                                                        offsets.get(
                                                                                new TopicPartition(
                                                                                        stopped.name
                                                                                                + "-in",
                                                                                        e
                                                                                                .getKey())))
                                                                .map(OffsetAndMetadata::offset)
                                                                .orElse(-1L)
                                                        >= e.getValue());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                Duration.ofMinutes(2),
                Duration.ofMillis(100),
                stopped.name + ": every input record read and checkpointed");
        // The sink commits that checkpoint's transactions beside the offsets: then no transaction
        // is open.
        CommonTestUtils.waitUtil(
                () ->
                        KafkaTopics.endOffsets(
                                        KAFKA.bootstrapServers(), stopped.name + "-out", true)
                                .equals(
                                        KafkaTopics.endOffsets(
                                                KAFKA.bootstrapServers(),
                                                stopped.name + "-out",
                                                false)),
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                stopped.name + ": output transactions all ended");
    }

    private static JobStatus status(JobClient job) {
        try {
            return job.getJobStatus().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }
}
