package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.testing.MiniClusters;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.RelayVerifier;
import io.kfp.relay.RelayJob;
import io.kfp.testkit.EmbeddedJobs;
import io.kfp.testkit.KafkaExtension;
import io.kfp.testkit.KafkaTopics;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.testutils.junit.SharedObjectsExtension;
import org.apache.flink.testutils.junit.SharedReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay's guarantees under real failures, on a real broker: a task exception after the first
 * completed checkpoint, another one during a later checkpoint, then cancel and a new job restored
 * from the retained checkpoint. Output is read back with read_committed and checked record by
 * record: every sequence number once, no gaps, per-key order kept; read_uncommitted must show
 * aborted records, or the failures never hit an open transaction and the test proved nothing.
 */
class ExactlyOnceTest {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** Each test's failure plan, reachable from the job's functions in this JVM. */
    @RegisterExtension final SharedObjectsExtension shared = SharedObjectsExtension.create();

    static final int RECORDS = 100_000;
    static final int PARTITIONS = 4;
    static final int KEYS = 50;

    /**
     * An hour ago, on a 10 s window boundary. Not a fixed date: the broker deletes records older
     * than its retention (7 days by default) while the test reads them.
     */
    static final long FIRST_TIMESTAMP =
            (System.currentTimeMillis() - Duration.ofHours(1).toMillis()) / 10_000 * 10_000;

    private static final PrintStream OUT = System.out;

    @Test
    void relayIsExactlyOnceAcrossTaskFailuresAndARestoreFromTheRetainedCheckpoint(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        Run run = new Run(shared, "eo", "--state.backend", "hashmap");
        run.produceInput();
        run.startWithFailures();
        run.cancelAndRestore(
                cluster,
                () ->
                        Audit.of(KafkaTopics.readAll(bootstrap(), run.output, true)).distinct
                                >= RECORDS);

        List<ConsumerRecord<byte[], byte[]>> committed =
                KafkaTopics.readAll(bootstrap(), run.output, true);
        List<ConsumerRecord<byte[], byte[]>> everything =
                KafkaTopics.readAll(bootstrap(), run.output, false);
        Audit audit = Audit.of(committed);
        long aborted = everything.size() - committed.size();
        OUT.printf(
                "exactly-once relay: records=%d, failures injected=%d (+ cancel and restore), committed=%d,"
                        + " aborted records seen with read_uncommitted=%d, duplicates=%d, gaps=%d%n",
                RECORDS,
                run.plan.failuresInjected(),
                committed.size(),
                aborted,
                audit.duplicates,
                audit.gaps);

        assertThat(run.plan.failuresInjected()).isEqualTo(2);
        assertThat(audit.duplicates).as("duplicates").isZero();
        assertThat(audit.gaps).as("gaps").isZero();
        assertThat(audit.distinct).isEqualTo(RECORDS);
        assertThat(audit.keysOutOfOrder).as("keys whose records are out of order").isEmpty();
        CopyReport verdict = verify(run);
        assertThat(verdict.clean()).as("kfp verify's verdict, byte for byte: %s", verdict).isTrue();
        assertThat(verdict.matched()).isEqualTo(RECORDS);
        assertThat(aborted)
                .as("aborted records: the failures must hit open transactions")
                .isPositive();
        run.assertNoOpenTransactionsOrProducerThreads();
    }

    @Test
    void windowCountWithRocksDbCountsEveryRecordExactlyOnceAcrossFailures(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        Run run =
                new Run(
                        shared,
                        "wc",
                        "--relay.transform",
                        "window-count",
                        "--relay.window-size",
                        "10 s",
                        "--state.backend",
                        "rocksdb");
        run.produceInput();
        run.produceWatermarkFlush();
        run.startWithFailures();
        run.cancelAndRestore(
                cluster,
                () -> sumOfCounts(KafkaTopics.readAll(bootstrap(), run.output, true)) >= RECORDS);

        List<ConsumerRecord<byte[], byte[]>> committed =
                KafkaTopics.readAll(bootstrap(), run.output, true);
        long total = 0;
        Set<String> keyWindows = new HashSet<>();
        int repeated = 0;
        for (ConsumerRecord<byte[], byte[]> r : committed) {
            String json = new String(r.value(), StandardCharsets.UTF_8);
            total += Long.parseLong(json.replaceAll(".*\"count\":(\\d+)}", "$1"));
            String keyWindow =
                    new String(r.key(), StandardCharsets.UTF_8)
                            + " "
                            + json.replaceAll(",\"count\".*", "");
            if (!keyWindows.add(keyWindow)) {
                repeated++;
            }
        }
        OUT.printf(
                "window-count (RocksDB): records=%d, failures injected=%d (+ cancel and restore), (key, window) results=%d,"
                        + " repeated results=%d, sum of counts=%d%n",
                RECORDS, run.plan.failuresInjected(), committed.size(), repeated, total);

        assertThat(run.plan.failuresInjected()).isEqualTo(2);
        assertThat(repeated).as("(key, window) pairs emitted more than once").isZero();
        assertThat(total).as("sum of all counts").isEqualTo(RECORDS);
        assertThat(keyWindows).hasSize(KEYS * (RECORDS / 10_000)); // 1 ms apart: 10 windows of 10 s
        run.assertNoOpenTransactionsOrProducerThreads();
    }

    @Test
    void atLeastOnceLosesNothingUnderTheSameFailures() throws Exception {
        Run run =
                new Run(
                        shared,
                        "alo",
                        "--sink.delivery-guarantee",
                        "at-least-once",
                        "--state.backend",
                        "hashmap");
        run.produceInput();
        run.startWithFailures();
        run.awaitOutput(
                () ->
                        Audit.of(KafkaTopics.readAll(bootstrap(), run.output, true)).distinct
                                >= RECORDS);
        run.first.cancel().get(1, TimeUnit.MINUTES);

        Audit audit = Audit.of(KafkaTopics.readAll(bootstrap(), run.output, true));
        OUT.printf(
                "at-least-once relay: records=%d, failures injected=%d, received=%d, missing=%d, duplicates=%d%n",
                RECORDS, run.plan.failuresInjected(), audit.received, audit.gaps, audit.duplicates);
        assertThat(run.plan.failuresInjected()).isEqualTo(2);
        assertThat(audit.gaps).as("missing records").isZero();
        assertThat(audit.distinct).isEqualTo(RECORDS);
        CopyReport verdict = verify(run);
        assertThat(
                        verdict.count(CopyReport.Kind.MISSING)
                                + verdict.count(CopyReport.Kind.ALTERED)
                                + verdict.count(CopyReport.Kind.UNEXPECTED))
                .as("records lost, altered or made up (only duplicates are allowed): %s", verdict)
                .isZero();
    }

    /** The verifier behind kfp verify, over the whole input and output. */
    static CopyReport verify(Run run) {
        Properties client = new Properties();
        client.setProperty("bootstrap.servers", bootstrap());
        return new RelayVerifier(
                        client,
                        Path.of("target", "verify-" + run.name),
                        RelayVerifier.DEFAULT_BUCKET_ENTRIES,
                        5,
                        null)
                .verify(
                        run.input,
                        RelayVerifier.Range.whole(),
                        run.output,
                        RelayVerifier.Range.whole());
    }

    static long sumOfCounts(List<ConsumerRecord<byte[], byte[]>> windowCounts) {
        return windowCounts.stream()
                .mapToLong(
                        r ->
                                Long.parseLong(
                                        new String(r.value(), StandardCharsets.UTF_8)
                                                .replaceAll(".*\"count\":(\\d+)}", "$1")))
                .sum();
    }

    static String bootstrap() {
        return KAFKA.bootstrapServers();
    }

    /** One relay run: its topics, its failure plan, its jobs. */
    static final class Run {
        final String name;
        final String input;
        final String output;
        final String instance;
        final List<String> args = new ArrayList<>();
        final SharedReference<FailureInjector.Plan> planReference;
        final FailureInjector.Plan plan;
        final Path checkpoints;
        JobClient first;

        Run(SharedObjectsExtension shared, String name, String... extraArgs) throws Exception {
            this.name = name;
            this.input = name + "-in";
            this.output = name + "-out";
            this.instance = name + "-test";
            this.planReference = shared.add(new FailureInjector.Plan());
            this.plan = planReference.get();
            this.checkpoints = Path.of("target", "it-checkpoints", name).toAbsolutePath();
            KAFKA.kafka().createTopics(PARTITIONS, input, output);
            args.addAll(
                    List.of(
                            "--kafka.bootstrap-servers", bootstrap(),
                            "--source.topics", input,
                            "--sink.topic", output,
                            "--job.instance-id", instance,
                            "--job.parallelism", "2",
                            "--checkpoint.interval", "300 ms",
                            "--checkpoint.min-pause", "100 ms",
                            "--checkpoint.dir", checkpoints.toString(),
                            "--restart.strategy", "fixed-delay",
                            "--restart.attempts", "5",
                            "--restart.initial-delay", "200 ms"));
            args.addAll(List.of(extraArgs));
        }

        /** RECORDS records, key key-(i mod 50), value seq-i, timestamps 1 ms apart. */
        void produceInput() throws Exception {
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(RECORDS);
            for (int i = 0; i < RECORDS; i++) {
                records.add(
                        new ProducerRecord<>(
                                input,
                                null,
                                FIRST_TIMESTAMP + i,
                                ("key-" + (i % KEYS)).getBytes(StandardCharsets.UTF_8),
                                ("seq-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            KafkaTopics.produce(bootstrap(), records);
        }

        /**
         * One record per partition 10 min after the input (which spans 100 s), so the watermark
         * passes every window of the input; their own window never closes, so they are not counted.
         */
        void produceWatermarkFlush() throws Exception {
            List<ProducerRecord<byte[], byte[]>> flush = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                flush.add(
                        new ProducerRecord<>(
                                input,
                                p,
                                FIRST_TIMESTAMP + Duration.ofMinutes(10).toMillis(),
                                "flush".getBytes(StandardCharsets.UTF_8),
                                "seq--1".getBytes(StandardCharsets.UTF_8)));
            }
            KafkaTopics.produce(bootstrap(), flush);
        }

        JobClient submit(List<String> jobArgs) {
            EmbeddedJobs.Submitted submitted =
                    EmbeddedJobs.submit(
                            RelayJob.SPEC,
                            c ->
                                    RelayJob.fromConfig(c)
                                            .withStageAfterSource(
                                                    s ->
                                                            s.map(
                                                                            new FailureInjector(
                                                                                    planReference,
                                                                                    5))
                                                                    .uid("failure-injector")
                                                                    .name("failure-injector")),
                            jobArgs.toArray(String[]::new),
                            OUT,
                            System.err);
            assertThat(submitted.exitCode()).as("relay-job entry point exit code").isZero();
            return submitted.client();
        }

        /** Starts the relay and waits until both failures happened and it recovered from them. */
        void startWithFailures() throws Exception {
            first = submit(args);
            CommonTestUtils.waitUtil(
                    () -> plan.completedAfterSecondFailure.get() >= 1 || isDone(first),
                    Duration.ofMinutes(3),
                    Duration.ofMillis(100),
                    "both injected failures and a checkpoint after them");
        }

        /**
         * Cancels the job, finishes the topic with a new one restored from its retained checkpoint,
         * and cancels that one once {@code done} holds. (Both run unbounded: a bounded Kafka source
         * restored from a checkpoint never finishes, FLINK-31006.)
         */
        void cancelAndRestore(MiniCluster cluster, Supplier<Boolean> done) throws Exception {
            assertThat(isDone(first))
                    .as("the first job must still run when it is cancelled (slow it down)")
                    .isFalse();
            first.cancel().get(1, TimeUnit.MINUTES);
            CommonTestUtils.waitUtil(
                    () -> status(first) == JobStatus.CANCELED,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "the first job to be cancelled");
            String retained =
                    org.apache.flink.runtime.testutils.CommonTestUtils
                            .getLatestCompletedCheckpointPath(first.getJobID(), cluster)
                            .orElseThrow(
                                    () ->
                                            new AssertionError(
                                                    "no retained checkpoint under " + checkpoints));
            plan.enabled = false;
            List<String> restoreArgs = new ArrayList<>(args);
            restoreArgs.addAll(List.of("--checkpoint.restore-from", retained));
            JobClient second = submit(restoreArgs);
            awaitOutput(done);
            // Two more completed checkpoints, so a duplicate committed late would be seen.
            int checkpoints = plan.completedCheckpoints.get();
            CommonTestUtils.waitUtil(
                    () -> plan.completedCheckpoints.get() >= checkpoints + 2,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "two more checkpoints");
            second.cancel().get(1, TimeUnit.MINUTES);
            CommonTestUtils.waitUtil(
                    () -> status(second) == JobStatus.CANCELED,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "the restored job to be cancelled");
        }

        /** Waits for {@code done}; on timeout says how far input and output got. */
        void awaitOutput(Supplier<Boolean> done) throws Exception {
            try {
                CommonTestUtils.waitUtil(
                        done,
                        Duration.ofMinutes(2),
                        Duration.ofMillis(100),
                        "the relay to finish the topic");
            } catch (TimeoutException timeout) {
                Audit in = Audit.of(KafkaTopics.readAll(bootstrap(), input, true));
                Audit out = Audit.of(KafkaTopics.readAll(bootstrap(), output, true));
                throw new AssertionError(
                        "timed out waiting for "
                                + timeout.getMessage()
                                + ": input has "
                                + in.received
                                + " records ("
                                + in.distinct
                                + " distinct), output "
                                + out.received
                                + " ("
                                + out.distinct
                                + " distinct, "
                                + out.gaps
                                + " missing)",
                        timeout);
            }
        }

        void assertNoOpenTransactionsOrProducerThreads() throws Exception {
            String prefix = "kfp.relay-job." + instance;
            try (Admin admin = KAFKA.kafka().admin()) {
                List<TransactionListing> open = new ArrayList<>();
                for (TransactionListing t :
                        admin.listTransactions().all().get(30, TimeUnit.SECONDS)) {
                    TransactionState state = t.state();
                    if (t.transactionalId().startsWith(prefix)
                            && (state == TransactionState.ONGOING
                                    || state == TransactionState.PREPARE_COMMIT
                                    || state == TransactionState.PREPARE_ABORT)) {
                        open.add(t);
                    }
                }
                assertThat(open).as("open transactions of " + prefix).isEmpty();
            }
            CommonTestUtils.waitUtil(
                    () ->
                            Thread.getAllStackTraces().keySet().stream()
                                    .noneMatch(
                                            t ->
                                                    t.getName()
                                                                    .startsWith(
                                                                            "kafka-producer-network-thread")
                                                            && t.getName().contains(prefix)),
                    Duration.ofSeconds(30),
                    Duration.ofMillis(100),
                    "the relay's Kafka producer threads to end");
        }

        private static boolean isDone(JobClient client) {
            return status(client).isGloballyTerminalState();
        }

        private static JobStatus status(JobClient client) {
            try {
                return client.getJobStatus().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** What the relayed sequence numbers show. */
    record Audit(
            int received, int distinct, int duplicates, int gaps, List<String> keysOutOfOrder) {

        static Audit of(List<ConsumerRecord<byte[], byte[]>> records) {
            Map<Integer, Integer> seen = new HashMap<>();
            Map<String, Integer> lastPerKey = new HashMap<>();
            Set<String> outOfOrder = new TreeSet<>();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                int seq =
                        Integer.parseInt(
                                new String(r.value(), StandardCharsets.UTF_8).substring(4));
                seen.merge(seq, 1, Integer::sum);
                String key = new String(r.key(), StandardCharsets.UTF_8);
                Integer previous = lastPerKey.put(key, seq);
                if (previous != null && previous >= seq) {
                    outOfOrder.add(key);
                }
            }
            int duplicates = seen.values().stream().mapToInt(c -> c - 1).sum();
            int gaps = 0;
            for (int i = 0; i < RECORDS; i++) {
                if (!seen.containsKey(i)) {
                    gaps++;
                }
            }
            return new Audit(
                    records.size(), seen.size(), duplicates, gaps, new ArrayList<>(outOfOrder));
        }
    }
}
