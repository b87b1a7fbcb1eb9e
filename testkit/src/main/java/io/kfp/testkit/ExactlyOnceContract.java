package io.kfp.testkit;

import static io.kfp.testkit.Awaits.awaitUntil;
import static io.kfp.testkit.Awaits.completedCheckpoints;
import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobEndpoints;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.RelayVerifier;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once contract of a job that reads and writes Kafka, on a real broker and a
 * MiniCluster of two one-slot TaskManagers. A job's test extends it in a few lines:
 *
 * <pre>{@code
 * class RelayContractTest extends ExactlyOnceContract {
 *     @Override
 *     protected JobSpec spec() {
 *         return RelayJob.SPEC;
 *     }
 * }
 * }</pre>
 *
 * <p>The test feeds records into the job's input topic at a steady rate while it kills the
 * TaskManager of one of the job's two subtasks, each time right after triggering a checkpoint while
 * a transaction holds records in the output (the job fails with its Kafka transactions open and a
 * checkpoint under way), until {@link #failures()} kills have had records aborted - a kill that
 * lands after the checkpoint committed them all does not count (at most four times as many kills);
 * stops the job with a savepoint, feeds more, resumes a new job from the savepoint; and once the
 * output shows every input record's effect, asserts that effect exactly once ({@link
 * #assertEffect}: by default a byte-for-byte copy, for a job whose spec says it copies), that the
 * failures did hit open transactions (aborted records in the output), and that no transaction of
 * the job is left open.
 */
public abstract class ExactlyOnceContract {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    /** Two TaskManagers of one slot each: a job of parallelism 2 has a task on both. */
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(1)
                            .setConfiguration(StreamEnvironments.loopbackOnly(new Configuration()))
                            .build());

    static final int PARTITIONS = 4;
    static final Duration WAIT = Awaits.WAIT;
    private static final PrintStream OUT = System.out;

    /** The job under test. */
    protected abstract JobSpec spec();

    /**
     * The job's settings besides what the contract sets (Kafka, topics, checkpointing, restarts,
     * parallelism 2), as {@code --key value} pairs.
     */
    protected List<String> settings() {
        return List.of();
    }

    /** How many times the job is failed mid-checkpoint before it is stopped with a savepoint. */
    protected int failures() {
        return 3;
    }

    /**
     * The {@code i}-th input record: by default key {@code key-(i mod 50)}, value {@code seq-i}.
     */
    protected ProducerRecord<byte[], byte[]> record(String topic, long i) {
        return new ProducerRecord<>(
                topic,
                ("key-" + (i % 50)).getBytes(StandardCharsets.UTF_8),
                ("seq-" + i).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Whether the committed output already shows the effect of every input record; by default: as
     * many output records as input records.
     */
    protected boolean complete(
            List<ConsumerRecord<byte[], byte[]>> input,
            List<ConsumerRecord<byte[], byte[]>> output) {
        return output.size() >= input.size();
    }

    /**
     * Asserts the effect of every input record exactly once in the committed output. By default,
     * for a job that copies: every input record in the output once, byte for byte (the record
     * verifier kfp verify uses). A job that transforms overrides it.
     */
    protected void assertEffect(Topics topics, List<ConsumerRecord<byte[], byte[]>> input)
            throws Exception {
        JobEndpoints endpoints =
                spec().endpoints(spec().configuration(topics.args().toArray(String[]::new)));
        if (!endpoints.copies()) {
            throw new AssertionError(
                    spec().command()
                            + " does not copy its input unchanged (its spec says so): override"
                            + " assertEffect to check what it writes for each input record.");
        }
        Properties client = new Properties();
        client.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        CopyReport report =
                new RelayVerifier(
                                client,
                                topics.dir().resolve("verify"),
                                RelayVerifier.DEFAULT_BUCKET_ENTRIES,
                                5,
                                OUT)
                        .verify(
                                topics.input(),
                                RelayVerifier.Range.whole(),
                                topics.output(),
                                RelayVerifier.Range.whole());
        assertThat(report.clean())
                .as("every input record once, byte for byte: %s", report)
                .isTrue();
        assertThat(report.matched()).isEqualTo(input.size());
    }

    /** The topics of one run, and the contract's settings for them. */
    public record Topics(String input, String output, String instance, Path dir) {

        /** The broker's address, for reading the topics back. */
        public String bootstrap() {
            return ExactlyOnceContract.bootstrap();
        }

        /** What the contract gives the job: its Kafka, topics, instance and checkpoints. */
        public List<String> args() {
            return List.of(
                    "--kafka.bootstrap-servers",
                    bootstrap(),
                    "--source.topics",
                    input,
                    "--source.offset-reset",
                    "earliest",
                    "--sink.topic",
                    output,
                    "--job.instance-id",
                    instance,
                    "--job.parallelism",
                    "2",
                    "--checkpoint.interval",
                    "300 ms",
                    "--checkpoint.min-pause",
                    "100 ms",
                    "--checkpoint.dir",
                    dir.resolve("checkpoints").toString(),
                    "--checkpoint.savepoint-dir",
                    dir.resolve("savepoints").toString(),
                    "--restart.strategy",
                    "fixed-delay",
                    "--restart.attempts",
                    "" + 10,
                    "--restart.initial-delay",
                    "200 ms");
        }
    }

    @Test
    void everyRecordTakesEffectOnceAcrossFailuresAndAStopWithSavepoint(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobSpec spec = spec();
        assertThat(spec.readsKafka() && spec.writesKafka())
                .as("the contract is for jobs that read and write Kafka")
                .isTrue();
        String name = spec.command() + "-contract";
        Topics topics =
                new Topics(
                        name + "-in",
                        name + "-out",
                        "contract-" + System.currentTimeMillis(),
                        Path.of("target", "contract", name).toAbsolutePath());
        KAFKA.kafka().createTopics(PARTITIONS, topics.input(), topics.output());
        List<String> args = new ArrayList<>(topics.args());
        args.addAll(settings());

        JobEndpoints endpoints = spec.endpoints(spec.configuration(args.toArray(String[]::new)));
        boolean transactional = endpoints.transactionalIdPrefix() != null;

        List<ConsumerRecord<byte[], byte[]>> input;
        try (Feeder feeder = new Feeder(topics.input())) {
            JobClient first = Awaits.submit(spec(), args, OUT);
            TaskManagers taskManagers = new TaskManagers(cluster);
            int hits = 0;
            int kills = 0;
            while (hits < failures()) {
                assertThat(kills)
                        .as(
                                "TaskManager kills so far, %d of them while a transaction held"
                                        + " records that were then aborted: every other one came"
                                        + " after the checkpoint had committed them",
                                hits)
                        .isLessThan(4 * failures());
                awaitCheckpointAndOutput(cluster, first.getJobID(), topics.output());
                Map<Integer, long[]> open =
                        transactional ? awaitOpenTransaction(topics.output()) : Map.of();
                cluster.triggerCheckpoint(first.getJobID());
                taskManagers.killOneAndReplaceIt();
                kills++;
                awaitCheckpointAndOutput(cluster, first.getJobID(), topics.output());
                if (!transactional || aborted(topics.output(), open) > 0) {
                    hits++;
                }
            }
            awaitCheckpointAndOutput(cluster, first.getJobID(), topics.output());
            feeder.stop();
            String savepoint =
                    first.stopWithSavepoint(
                                    false,
                                    topics.dir().resolve("savepoints").toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(WAIT.toMinutes(), TimeUnit.MINUTES);
            feeder.feed(1_000);

            List<String> resumed = new ArrayList<>(args);
            resumed.addAll(List.of("--checkpoint.restore-from", savepoint));
            JobClient second = Awaits.submit(spec(), resumed, OUT);
            input = KafkaTopics.readAll(bootstrap(), topics.input(), true);
            List<ConsumerRecord<byte[], byte[]>> feed = input;
            awaitUntil(
                    () -> complete(feed, KafkaTopics.readAll(bootstrap(), topics.output(), true)),
                    "the output to show every input record (" + input.size() + ")");
            // Two more checkpoints, so that a duplicate committed late would be seen.
            long done = completedCheckpoints(cluster, second.getJobID());
            awaitUntil(
                    () -> completedCheckpoints(cluster, second.getJobID()) >= done + 2,
                    "two more checkpoints");
            second.cancel().get(WAIT.toMinutes(), TimeUnit.MINUTES);
            awaitUntil(
                    () -> second.getJobStatus().get(30, TimeUnit.SECONDS) == JobStatus.CANCELED,
                    "the resumed job to be cancelled");
            OUT.printf(
                    "%s contract: %d records, %d TaskManager kills mid-checkpoint (%d with records"
                            + " aborted), savepoint %s%n",
                    spec.command(), input.size(), kills, hits, savepoint);
        }

        assertEffect(topics, input);
        if (transactional) {
            long committed = KafkaTopics.readAll(bootstrap(), topics.output(), true).size();
            long everything = KafkaTopics.readAll(bootstrap(), topics.output(), false).size();
            assertThat(everything - committed)
                    .as("aborted records in the output: the failures must hit open transactions")
                    .isPositive();
            assertNoOpenTransactions(endpoints.transactionalIdPrefix() + "-");
        }
    }

    static String bootstrap() {
        return KAFKA.bootstrapServers();
    }

    /** Waits for a completed checkpoint after now and for committed output beyond what is there. */
    private static void awaitCheckpointAndOutput(MiniCluster cluster, JobID job, String output)
            throws Exception {
        long checkpoints = completedCheckpoints(cluster, job);
        long records = KafkaTopics.readAll(bootstrap(), output, true).size();
        awaitUntil(
                () -> completedCheckpoints(cluster, job) > checkpoints,
                "a completed checkpoint of the running job");
        awaitUntil(
                () -> KafkaTopics.readAll(bootstrap(), output, true).size() > records,
                "more committed output");
    }

    /**
     * Waits until an open transaction holds records in the output (its high watermark beyond its
     * last stable offset somewhere) and returns those ranges, partition -> [LSO, HW).
     */
    private static Map<Integer, long[]> awaitOpenTransaction(String output) throws Exception {
        Map<Integer, long[]> open = new HashMap<>();
        awaitUntil(
                () -> {
                    open.clear();
                    Map<Integer, Long> stable = KafkaTopics.endOffsets(bootstrap(), output, true);
                    KafkaTopics.endOffsets(bootstrap(), output, false)
                            .forEach(
                                    (partition, high) -> {
                                        if (high > stable.get(partition)) {
                                            open.put(
                                                    partition,
                                                    new long[] {stable.get(partition), high});
                                        }
                                    });
                    return !open.isEmpty();
                },
                "an open transaction holding records in the output");
        return open;
    }

    /**
     * How many records of {@code ranges}, once decided (the last stable offset past them), ended up
     * in aborted transactions.
     */
    private static long aborted(String output, Map<Integer, long[]> ranges) throws Exception {
        awaitUntil(
                () -> {
                    Map<Integer, Long> stable = KafkaTopics.endOffsets(bootstrap(), output, true);
                    return ranges.entrySet().stream()
                            .allMatch(r -> stable.get(r.getKey()) >= r.getValue()[1]);
                },
                "the transactions open before the kill to be committed or aborted");
        return KafkaTopics.count(bootstrap(), output, ranges, false)
                - KafkaTopics.count(bootstrap(), output, ranges, true);
    }

    private static void assertNoOpenTransactions(String ids) throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            List<TransactionListing> open = new ArrayList<>();
            for (TransactionListing t : admin.listTransactions().all().get(30, TimeUnit.SECONDS)) {
                TransactionState state = t.state();
                if (t.transactionalId().startsWith(ids)
                        && (state == TransactionState.ONGOING
                                || state == TransactionState.PREPARE_COMMIT
                                || state == TransactionState.PREPARE_ABORT)) {
                    open.add(t);
                }
            }
            assertThat(open).as("open transactions of %s*", ids).isEmpty();
        }
    }

    /**
     * The MiniCluster's TaskManagers by index: Flink keeps a terminated one in its list, so the
     * live ones are tracked here.
     */
    private static final class TaskManagers {
        private final MiniCluster cluster;
        private final List<Integer> live = new ArrayList<>(List.of(0, 1));
        private int next = 2;

        TaskManagers(MiniCluster cluster) {
            this.cluster = cluster;
        }

        /**
         * Kills the oldest live TaskManager - it runs one of the job's two tasks - and starts one.
         */
        void killOneAndReplaceIt() throws Exception {
            cluster.terminateTaskManager(live.remove(0)).get(WAIT.toMinutes(), TimeUnit.MINUTES);
            cluster.startTaskManager();
            live.add(next++);
        }
    }

    /** Writes {@link #record}s into the input at about 2,000 a second until stopped. */
    private final class Feeder implements AutoCloseable {
        private final String topic;
        private final KafkaProducer<byte[], byte[]> producer;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private final List<Throwable> failure = Collections.synchronizedList(new ArrayList<>());
        private long sent;

        Feeder(String topic) {
            this.topic = topic;
            this.producer = KafkaTopics.producer(bootstrap());
            this.thread = new Thread(this::run, "contract-feeder");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try {
                while (running.get()) {
                    send(100);
                    Thread.sleep(50);
                }
            } catch (Throwable t) {
                failure.add(t);
            }
        }

        private synchronized void send(int count) {
            for (int i = 0; i < count; i++) {
                producer.send(record(topic, sent++));
            }
            producer.flush();
        }

        /** After {@link #stop}: {@code count} more records, acknowledged on return. */
        void feed(int count) {
            send(count);
        }

        /** Stops the steady feed; the records sent so far are acknowledged. */
        void stop() throws InterruptedException {
            if (running.getAndSet(false)) {
                thread.join(WAIT.toMillis());
                assertThat(failure).as("the feeder's errors").isEmpty();
            }
        }

        @Override
        public void close() throws Exception {
            try {
                stop();
            } finally {
                producer.close();
            }
        }
    }
}
