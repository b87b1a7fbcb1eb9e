package io.kfp.testkit;

import static io.kfp.testkit.Awaits.awaitUntil;
import static io.kfp.testkit.Awaits.completedCheckpoints;
import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.preflight.AdminBrokerView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.FileUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * State compatibility in the build, the pattern of Flink's own migration tests: a job module keeps
 * a savepoint its released code wrote in {@code src/test/resources/savepoints/JOB/}, and this test
 * restores it into the current code and checks that the state came through. A change that renames
 * an operator uid or breaks a state's type fails the module's build, naming the operator.
 *
 * <pre>{@code
 * class DedupStateCompatibilityTest extends StateCompatibilityContract {
 *     protected JobSpec spec() { return DedupJob.SPEC; }
 *     protected List<ProducerRecord<byte[], byte[]>> before(String topic) { ... ids 0-99 }
 *     protected List<ProducerRecord<byte[], byte[]>> after(String topic) { ... ids 50-149 }
 *     protected void assertStateCameThrough(List<ConsumerRecord<byte[], byte[]>> output) { ... }
 * }
 * }</pre>
 *
 * <p>Making the savepoint (at a release, or after an intended change of state, with what the change
 * means for running jobs said in the release notes): {@code ./mvnw -pl JOB-job -am test
 * -Dtest=TheTest -Dsurefire.failIfNoSpecifiedTests=false -Dkfp.savepoint.refresh=true}. The job
 * reads {@link #before} on a fresh broker, and once every record is behind a completed checkpoint
 * and no transaction holds records, it stops with a savepoint, copied to the module's test
 * resources with the version that wrote it.
 *
 * <p>The test: {@code before} is written again into a fresh broker (the savepoint's source offsets
 * point behind it), the job's entry point checks the savepoint against the current graph ({@code
 * --checkpoint.check-restore-from}: every operator state must find its uid), the job is restored
 * from it, reads {@link #after}, and {@link #assertStateCameThrough} judges its output.
 */
public abstract class StateCompatibilityContract {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(StreamEnvironments.loopbackOnly(new Configuration()))
                            .build());

    /** The system property that makes the savepoint instead of testing it. */
    public static final String REFRESH = "kfp.savepoint.refresh";

    static final int PARTITIONS = 4;
    static final Duration WAIT = Awaits.WAIT;
    private static final PrintStream OUT = System.out;

    /** The job under test. */
    protected abstract JobSpec spec();

    /** The job's settings besides Kafka, topics, checkpointing and parallelism 2. */
    protected List<String> settings() {
        return List.of();
    }

    /** The input the savepoint's state holds; written again, unchanged, before the restore. */
    protected abstract List<ProducerRecord<byte[], byte[]>> before(String topic);

    /** The input after the restore, whose output shows the state. */
    protected abstract List<ProducerRecord<byte[], byte[]>> after(String topic);

    /**
     * Whether the committed output after the restore shows enough to judge; two more checkpoints
     * later it is judged.
     */
    protected abstract boolean complete(List<ConsumerRecord<byte[], byte[]>> output);

    /** Asserts from the committed output after the restore that the state came through. */
    protected abstract void assertStateCameThrough(List<ConsumerRecord<byte[], byte[]>> output);

    /** Where the module keeps the savepoint: {@code src/test/resources/savepoints/JOB}. */
    protected Path savepointDirectory() {
        return Path.of("src", "test", "resources", "savepoints", spec().command()).toAbsolutePath();
    }

    private String input() {
        return spec().command() + "-compat-in";
    }

    private String output() {
        return spec().command() + "-compat-out";
    }

    private List<String> args(Path work) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--source.topics",
                                input(),
                                "--source.offset-reset",
                                "earliest",
                                "--sink.topic",
                                output(),
                                "--job.instance-id",
                                "compat",
                                "--job.parallelism",
                                "2",
                                "--checkpoint.interval",
                                "300 ms",
                                "--checkpoint.dir",
                                work.resolve("checkpoints").toString(),
                                "--checkpoint.savepoint-dir",
                                work.resolve("savepoints").toString(),
                                "--restart.strategy",
                                "none"));
        args.addAll(settings());
        return args;
    }

    @Test
    void theSavepointOfTheReleasedCodeRestoresWithItsState(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Path work = Path.of("target", "state-compat", spec().command()).toAbsolutePath();
        FileUtils.deleteDirectory(work.toFile());
        KAFKA.kafka().createTopics(PARTITIONS, input(), output());
        KafkaTopics.produce(KAFKA.bootstrapServers(), before(input()));
        if (Boolean.getBoolean(REFRESH)) {
            refresh(cluster, work);
            return;
        }
        Path kept = savepointDirectory().resolve("savepoint");
        assertThat(kept.resolve("_metadata"))
                .as(
                        "%s keeps no savepoint to test; make it: ./mvnw -pl %s -am test -Dtest=%s"
                                + " -Dsurefire.failIfNoSpecifiedTests=false -D%s=true",
                        spec().command(),
                        spec().command() + "-job",
                        getClass().getSimpleName(),
                        REFRESH)
                .exists();
        // The savepoint is read, never written: a copy keeps the module's files as they are.
        Path savepoint = work.resolve("released-savepoint");
        copyRecursively(kept, savepoint);

        List<String> check = new ArrayList<>(args(work));
        check.addAll(
                List.of("--" + CheckpointOptions.CHECK_RESTORE_FROM.key(), savepoint.toString()));
        ByteArrayOutputStream verdict = new ByteArrayOutputStream();
        int exit =
                new JobEntryPoint(
                                System.getenv(),
                                new PrintStream(verdict, true, StandardCharsets.UTF_8),
                                new PrintStream(verdict, true, StandardCharsets.UTF_8),
                                AdminBrokerView::new)
                        .run(
                                spec(),
                                check.toArray(String[]::new),
                                (s, c) -> {
                                    throw new AssertionError("the check submitted the job");
                                });
        assertThat(exit)
                .as(
                        "the released savepoint (made by %s) against the current code:%n%s",
                        madeBy(), verdict.toString(StandardCharsets.UTF_8))
                .isZero();

        List<String> restore = new ArrayList<>(args(work));
        restore.addAll(List.of("--checkpoint.restore-from", savepoint.toString()));
        JobClient job = Awaits.submit(spec(), restore, OUT);
        try {
            KafkaTopics.produce(KAFKA.bootstrapServers(), after(input()));
            awaitUntil(
                    () -> {
                        JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
                        assertThat(status.isGloballyTerminalState())
                                .as("the restored job ended: %s (its log is above)", status)
                                .isFalse();
                        return complete(committedOutput());
                    },
                    "the restored job's output to be complete");
            // Two more checkpoints: what else the restored state makes the job write shows too.
            long done = completedCheckpoints(cluster, job.getJobID());
            awaitUntil(
                    () -> completedCheckpoints(cluster, job.getJobID()) >= done + 2,
                    "two more checkpoints");
            assertStateCameThrough(committedOutput());
        } finally {
            job.cancel().get(WAIT.toMinutes(), TimeUnit.MINUTES);
        }
    }

    /** Runs the job on {@link #before}, stops it with a savepoint and keeps it in the module. */
    private void refresh(MiniCluster cluster, Path work) throws Exception {
        JobClient job = Awaits.submit(spec(), args(work), OUT);
        JobID id = job.getJobID();
        String group =
                spec().endpoints(spec().configuration(args(work).toArray(String[]::new)))
                        .consumerGroup();
        // Every input record behind a completed checkpoint (its offsets committed on completion),
        // then one more: its transactions hold nothing, so the savepoint has nothing to commit.
        awaitUntil(() -> committedEverything(group), "the job to commit every input offset");
        long done = completedCheckpoints(cluster, id);
        awaitUntil(() -> completedCheckpoints(cluster, id) > done, "one more checkpoint");
        String written =
                job.stopWithSavepoint(
                                false,
                                work.resolve("savepoints").toString(),
                                SavepointFormatType.CANONICAL)
                        .get(WAIT.toMinutes(), TimeUnit.MINUTES);
        Path target = savepointDirectory();
        FileUtils.deleteDirectory(target.toFile());
        copyRecursively(Path.of(java.net.URI.create(written)), target.resolve("savepoint"));
        Files.writeString(target.resolve("MADE_BY"), version() + "\n", StandardCharsets.UTF_8);
        OUT.printf("%s: kept the savepoint of %s in %s%n", spec().command(), version(), target);
    }

    private String madeBy() {
        try {
            return Files.readString(savepointDirectory().resolve("MADE_BY")).trim();
        } catch (IOException e) {
            return "an unknown version";
        }
    }

    /** The version that writes the savepoint: the git commit checked out, when git can say. */
    private static String version() {
        try {
            Process git =
                    new ProcessBuilder("git", "describe", "--always", "--dirty")
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0
                    ? "commit " + out.trim()
                    : "an unknown commit";
        } catch (IOException e) {
            return "an unknown commit";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "an unknown commit";
        }
    }

    private boolean committedEverything(String group) throws Exception {
        Map<Integer, Long> ends = KafkaTopics.endOffsets(KAFKA.bootstrapServers(), input(), true);
        try (Admin admin = KAFKA.kafka().admin()) {
            ListConsumerGroupOffsetsResult result = admin.listConsumerGroupOffsets(group);
            Map<TopicPartition, OffsetAndMetadata> committed =
                    result.partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            return ends.entrySet().stream()
                    .allMatch(
                            e -> {
                                OffsetAndMetadata o =
                                        committed.get(new TopicPartition(input(), e.getKey()));
                                return e.getValue() == 0
                                        || (o != null && o.offset() >= e.getValue());
                            });
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> committedOutput() throws Exception {
        return KafkaTopics.readAll(KAFKA.bootstrapServers(), output(), true);
    }

    private static void copyRecursively(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
