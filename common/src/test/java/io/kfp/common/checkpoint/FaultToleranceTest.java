package io.kfp.common.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaSinkOptions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Our options land on the Flink 2 keys a job really reads. */
class FaultToleranceTest {

    private static final JobSpec SPEC =
            JobSpec.builder("relay-job", "test")
                    .owner("tests")
                    .group(KafkaSinkOptions.GROUP)
                    .defaultValue(KafkaSinkOptions.TOPIC, "out")
                    .workflow(c -> env -> {});

    private static Map<String, String> flink(String... args) {
        return FaultTolerance.flinkConfiguration(SPEC.configuration(args)).toMap();
    }

    @Test
    void defaultsFollowTheReferenceTutorial() {
        Map<String, String> f = flink();
        assertThat(f)
                .containsEntry("execution.checkpointing.interval", "5 s")
                .containsEntry("execution.checkpointing.mode", "EXACTLY_ONCE")
                .containsEntry("execution.checkpointing.min-pause", "500 ms")
                .containsEntry("execution.checkpointing.timeout", "1 min")
                .containsEntry("execution.checkpointing.max-concurrent-checkpoints", "1")
                .containsEntry(
                        "execution.checkpointing.externalized-checkpoint-retention",
                        "RETAIN_ON_CANCELLATION")
                .containsEntry("state.backend.type", "rocksdb")
                .containsEntry("execution.checkpointing.incremental", "true")
                .containsEntry("restart-strategy.type", "exponential-delay")
                .containsEntry(
                        "restart-strategy.exponential-delay.attempts-before-reset-backoff", "10")
                .containsEntry("restart-strategy.exponential-delay.initial-backoff", "1 s")
                .containsEntry("restart-strategy.exponential-delay.max-backoff", "1 min")
                .containsEntry("restart-strategy.exponential-delay.backoff-multiplier", "2.0")
                .containsEntry(
                        "restart-strategy.exponential-delay.reset-backoff-threshold", "10 min")
                .containsEntry("pipeline.name", "relay-job");
        assertThat(f.get("execution.checkpointing.dir"))
                .isEqualTo(Path.of("kfp-state/checkpoints").toAbsolutePath().toUri().toString());
    }

    @Test
    void theMinPauseIsATenthOfTheIntervalAtMost500MsUnlessSet() {
        assertThat(flink("--checkpoint.interval", "100 ms"))
                .containsEntry("execution.checkpointing.min-pause", "10 ms");
        assertThat(flink("--checkpoint.interval", "1 s"))
                .containsEntry("execution.checkpointing.min-pause", "100 ms");
        assertThat(flink("--checkpoint.interval", "10 s"))
                .containsEntry("execution.checkpointing.min-pause", "500 ms");
        assertThat(flink("--checkpoint.interval", "100 ms", "--checkpoint.min-pause", "2 s"))
                .containsEntry("execution.checkpointing.min-pause", "2 s");
        assertThat(flink("--checkpoint.interval", "100 ms", "--checkpoint.min-pause", "0 ms"))
                .containsEntry("execution.checkpointing.min-pause", "0 ms");
    }

    @Test
    void aFailureAfterTheResetTimeIsANewIncident() {
        assertThat(flink("--restart.reset-after", "30 s"))
                .containsEntry(
                        "restart-strategy.exponential-delay.reset-backoff-threshold", "30 s");
    }

    @Test
    void checkpointingOffSetsNoInterval() {
        Map<String, String> f =
                flink(
                        "--checkpoint.enabled",
                        "false",
                        "--sink.delivery-guarantee",
                        "at-least-once");
        assertThat(f).doesNotContainKey("execution.checkpointing.interval");
    }

    @Test
    void everyOptionCanBeOverridden() {
        Map<String, String> f =
                flink(
                        "--checkpoint.interval", "2 s",
                        "--checkpoint.mode", "at-least-once",
                        "--sink.delivery-guarantee", "at-least-once",
                        "--checkpoint.retention", "delete-on-cancellation",
                        "--checkpoint.dir", "s3://bucket/ckpt",
                        "--checkpoint.savepoint-dir", "hdfs://nn:8020/sp",
                        "--state.backend", "hashmap",
                        "--state.incremental", "false",
                        "--restart.strategy", "fixed-delay",
                        "--restart.attempts", "3",
                        "--restart.initial-delay", "2 s",
                        "--job.parallelism", "4");
        assertThat(f)
                .containsEntry("execution.checkpointing.interval", "2 s")
                .containsEntry("execution.checkpointing.mode", "AT_LEAST_ONCE")
                .containsEntry(
                        "execution.checkpointing.externalized-checkpoint-retention",
                        "DELETE_ON_CANCELLATION")
                .containsEntry("execution.checkpointing.dir", "s3://bucket/ckpt")
                .containsEntry("execution.checkpointing.savepoint-dir", "hdfs://nn:8020/sp")
                .containsEntry("state.backend.type", "hashmap")
                .containsEntry("execution.checkpointing.incremental", "false")
                .containsEntry("restart-strategy.type", "fixed-delay")
                .containsEntry("restart-strategy.fixed-delay.attempts", "3")
                .containsEntry("restart-strategy.fixed-delay.delay", "2 s")
                .containsEntry("parallelism.default", "4");
        assertThat(flink("--restart.strategy", "none"))
                .containsEntry("restart-strategy.type", "none");
        assertThat(flink("--execution.state-recovery.path", "file:/ckpt/chk-3"))
                .containsEntry("execution.state-recovery.path", "file:/ckpt/chk-3");
        assertThat(flink()).doesNotContainKey("execution.state-recovery.path");
    }
}
