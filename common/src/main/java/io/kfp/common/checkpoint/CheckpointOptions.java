package io.kfp.common.checkpoint;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.OptionGroup;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.CheckpointingMode;

/**
 * When and how a job takes checkpoints, and where they are kept. Defaults follow the reference
 * tutorial: every 5 s, exactly-once, 60 s timeout, one at a time, retained on cancellation; the
 * pause between checkpoints a tenth of the interval, 500 ms at most (see {@link #minPause}).
 */
public final class CheckpointOptions implements OptionGroup {

    public static final CheckpointOptions GROUP = new CheckpointOptions();

    public static final ConfigOption<Boolean> ENABLED =
            key("checkpoint.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Take periodic checkpoints. Off: no recovery of Kafka offsets or state"
                                    + " after a failure, and an exactly-once sink never commits;"
                                    + " the Kafka source then commits offsets with the consumer's"
                                    + " own auto-commit (see source.auto-commit).");

    public static final ConfigOption<Duration> INTERVAL =
            key("checkpoint.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withFallbackKeys("execution.checkpointing.interval")
                    .withDescription(
                            "Time between the starts of two checkpoints. With an exactly-once"
                                    + " Kafka sink this is also how long output stays invisible to"
                                    + " read_committed consumers.");

    public static final ConfigOption<CheckpointingMode> MODE =
            key("checkpoint.mode")
                    .enumType(CheckpointingMode.class)
                    .defaultValue(CheckpointingMode.EXACTLY_ONCE)
                    .withFallbackKeys("execution.checkpointing.mode")
                    .withDescription(
                            "exactly-once aligns barriers so every record is in exactly one"
                                    + " checkpoint; at-least-once skips alignment (lower latency,"
                                    + " replays may duplicate). An exactly-once sink needs"
                                    + " exactly-once.");

    public static final ConfigOption<Duration> MIN_PAUSE =
            key("checkpoint.min-pause")
                    .durationType()
                    .noDefaultValue()
                    .withFallbackKeys("execution.checkpointing.min-pause")
                    .withDescription(
                            "Minimum time between the end of one checkpoint and the start of"
                                    + " the next, so a slow checkpoint cannot starve processing."
                                    + " Unset: a tenth of checkpoint.interval, 500 ms at most (a"
                                    + " fixed 500 ms would stretch a 100 ms interval to 600 ms).");

    public static final ConfigOption<Duration> TIMEOUT =
            key("checkpoint.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withFallbackKeys("execution.checkpointing.timeout")
                    .withDescription("A checkpoint not complete after this long is discarded.");

    public static final ConfigOption<Integer> MAX_CONCURRENT =
            key("checkpoint.max-concurrent")
                    .intType()
                    .defaultValue(1)
                    .withFallbackKeys("execution.checkpointing.max-concurrent-checkpoints")
                    .withDescription("How many checkpoints may be in progress at the same time.");

    /**
     * With Flink's default of 0, a checkpoint that fails because the store is away fails the job
     * over: the restart burns one of the restart strategy's attempts and replays everything since
     * the last checkpoint while the store is still away. A 30 s S3 outage in the lab (35-45 s until
     * the store served again, the S3 client failing fast) failed up to 6 checkpoints in a row at a
     * 1 s interval: 10 rides that out. Each tolerated failure keeps a pre-committed transaction
     * open for another checkpoint, which {@link io.kfp.common.kafka.TransactionTimeout} checks.
     */
    public static final ConfigOption<Integer> TOLERABLE_FAILURES =
            key("checkpoint.tolerable-failures")
                    .intType()
                    .defaultValue(10)
                    .withFallbackKeys("execution.checkpointing.tolerable-failed-checkpoints")
                    .withDescription(
                            "Checkpoints that may fail in a row (a store briefly away) before the"
                                    + " job fails over and replays; an exactly-once sink's"
                                    + " transactions must outlive that many, checked against"
                                    + " sink.transaction-timeout.");

    public static final ConfigOption<ExternalizedCheckpointRetention> RETENTION =
            key("checkpoint.retention")
                    .enumType(ExternalizedCheckpointRetention.class)
                    .defaultValue(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
                    .withDescription(
                            "Keep the last checkpoint when the job is cancelled, so it can be"
                                    + " resumed from it (execution.state-recovery.path);"
                                    + " delete-on-cancellation keeps it only when the job fails.");

    public static final ConfigOption<Integer> NUM_RETAINED =
            key("checkpoint.num-retained")
                    .intType()
                    .defaultValue(2)
                    .withFallbackKeys("execution.checkpointing.num-retained")
                    .withDescription(
                            "How many completed checkpoints are kept (Flink keeps 1): two, so the one before the newest is there when the newest one's transactions turn out lost.");

    public static final ConfigOption<String> DIRECTORY =
            key("checkpoint.dir")
                    .stringType()
                    .defaultValue("kfp-state/checkpoints")
                    .withFallbackKeys("execution.checkpointing.dir")
                    .withDescription(
                            "Where checkpoints are written: a URI (file://, hdfs://, s3://) or a local path, relative to the directory the job is started from. Every JobManager and TaskManager must reach it.");

    public static final ConfigOption<String> SAVEPOINT_DIRECTORY =
            key("checkpoint.savepoint-dir")
                    .stringType()
                    .defaultValue("kfp-state/savepoints")
                    .withFallbackKeys("execution.checkpointing.savepoint-dir")
                    .withDescription(
                            "Default target of stop-with-savepoint, same forms as"
                                    + " checkpoint.dir.");

    public static final ConfigOption<String> RESTORE_FROM =
            key("checkpoint.restore-from")
                    .stringType()
                    .noDefaultValue()
                    .withFallbackKeys("execution.state-recovery.path")
                    .withDescription(
                            "Start from this savepoint or retained checkpoint (the directory, e.g."
                                    + " .../chk-42 or .../savepoint-1a2b3c) instead of from"
                                    + " scratch: sources resume from the offsets in it. Same forms"
                                    + " as checkpoint.dir. (flink run -s PATH does the same.)");

    public static final ConfigOption<Boolean> ALLOW_NON_RESTORED_STATE =
            key("checkpoint.allow-non-restored-state")
                    .booleanType()
                    .defaultValue(false)
                    .withFallbackKeys("execution.state-recovery.ignore-unclaimed-state")
                    .withDescription(
                            "With checkpoint.restore-from: start even when state in it has no"
                                    + " operator of that uid in the job, dropping that state. Off:"
                                    + " such a start fails, naming the operator.");

    public static final ConfigOption<String> CHECK_RESTORE_FROM =
            key("checkpoint.check-restore-from")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Run nothing: check that the savepoint or retained checkpoint at this"
                                    + " path restores into the job as configured (each operator"
                                    + " state in it has an operator of that uid, at a matching max"
                                    + " parallelism), print the verdict, exit 0 if so, 1 if not.");

    private CheckpointOptions() {}

    /** The longest pause a job gets without setting checkpoint.min-pause. */
    static final Duration MAX_DEFAULT_MIN_PAUSE = Duration.ofMillis(500);

    /**
     * checkpoint.min-pause as set, else a tenth of checkpoint.interval and at most 500 ms. The
     * pause starts when a checkpoint ends, so a pause of its own that is not short beside the
     * interval sets the pace instead of the interval: at 100 ms with 500 ms a checkpoint started
     * every 550-600 ms, and exactly-once output waited that long to become visible.
     */
    public static Duration minPause(ReadableConfig config) {
        return config.getOptional(MIN_PAUSE)
                .orElseGet(
                        () -> {
                            Duration tenth = config.get(INTERVAL).dividedBy(10);
                            return tenth.compareTo(MAX_DEFAULT_MIN_PAUSE) < 0
                                    ? tenth
                                    : MAX_DEFAULT_MIN_PAUSE;
                        });
    }

    @Override
    public String title() {
        return "Checkpointing";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(
                ENABLED,
                INTERVAL,
                MODE,
                MIN_PAUSE,
                TIMEOUT,
                MAX_CONCURRENT,
                TOLERABLE_FAILURES,
                RETENTION,
                NUM_RETAINED,
                DIRECTORY,
                SAVEPOINT_DIRECTORY,
                RESTORE_FROM,
                ALLOW_NON_RESTORED_STATE,
                CHECK_RESTORE_FROM);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        if (config.get(NUM_RETAINED) < 1) {
            problems.add(NUM_RETAINED.key(), "must be at least 1.", "use 2 (the default).");
        }
        if (config.get(ENABLED) && config.get(INTERVAL).compareTo(Duration.ofMillis(10)) < 0) {
            problems.add(
                    INTERVAL.key(),
                    "must be at least 10 ms (Flink's minimum).",
                    "use e.g. 5 s; to turn checkpointing off set checkpoint.enabled=false.");
        }
        if (minPause(config).isNegative()) {
            problems.add(MIN_PAUSE.key(), "must not be negative.", "use e.g. 500 ms, or 0 ms.");
        }
        if (config.get(TIMEOUT).compareTo(Duration.ofMillis(10)) < 0) {
            problems.add(TIMEOUT.key(), "must be at least 10 ms.", "use e.g. 60 s.");
        }
        if (config.get(TOLERABLE_FAILURES) < 0) {
            problems.add(
                    TOLERABLE_FAILURES.key(),
                    "must not be negative.",
                    "use e.g. 10 (the default), or 0 to fail over at the first failed checkpoint.");
        }
        if (config.get(MAX_CONCURRENT) < 1) {
            problems.add(MAX_CONCURRENT.key(), "must be at least 1.", "use 1.");
        }
        if (config.get(RETENTION) == ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS) {
            // Flink's type has a third value; with it nothing is left to resume from once the job
            // ends, not even after a failure (kfp resume, the lost-transaction guard's advice).
            problems.add(
                    RETENTION.key(),
                    "no-externalized-checkpoints deletes every checkpoint when the job ends, even when"
                            + " it fails: nothing would be left to resume from.",
                    "use retain-on-cancellation (the default) or delete-on-cancellation.");
        }
        checkLocation(config, DIRECTORY, problems);
        checkLocation(config, SAVEPOINT_DIRECTORY, problems);
        if (config.getOptional(RESTORE_FROM).isPresent()) {
            checkLocation(config, RESTORE_FROM, problems);
        }
        if (config.getOptional(CHECK_RESTORE_FROM).isPresent()) {
            checkLocation(config, CHECK_RESTORE_FROM, problems);
        }
    }

    private static void checkLocation(
            ReadableConfig config, ConfigOption<String> option, ConfigProblems problems) {
        String value = config.get(option);
        if (value == null || value.isBlank()) {
            problems.add(
                    option.key(),
                    "must not be empty.",
                    "set a directory or URI, e.g. file:///data/ckpt.");
            return;
        }
        try {
            StorageLocations.toUri(value);
        } catch (URISyntaxException | IllegalArgumentException e) {
            problems.add(
                    option.key(),
                    "is neither a URI nor a path (" + e.getMessage() + ").",
                    "write a URI such as file:///data/ckpt, hdfs://namenode:8020/ckpt,"
                            + " s3://bucket/ckpt, or a plain path.");
        }
    }
}
