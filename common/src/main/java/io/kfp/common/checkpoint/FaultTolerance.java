package io.kfp.common.checkpoint;

import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.JobOptions;
import java.net.URISyntaxException;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;

/**
 * Translates our checkpoint, state and restart options into Flink 2 configuration keys ({@code
 * execution.checkpointing.*}, {@code state.backend.type}, {@code restart-strategy.*}). The 1.x
 * setters ({@code setStateBackend}, {@code setRestartStrategy}, ...) no longer exist; configuration
 * passed to the environment is the one way to set these per job.
 */
public final class FaultTolerance {

    private FaultTolerance() {}

    /** Flink settings for a job configured with {@code config} (already validated). */
    public static Configuration flinkConfiguration(ReadableConfig config) {
        Configuration flink = new Configuration();
        flink.set(PipelineOptions.NAME, config.get(JobOptions.NAME));
        config.getOptional(JobOptions.PARALLELISM)
                .ifPresent(p -> flink.set(CoreOptions.DEFAULT_PARALLELISM, p));

        if (config.get(CheckpointOptions.ENABLED)) {
            flink.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    config.get(CheckpointOptions.INTERVAL));
        }
        flink.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                config.get(CheckpointOptions.MODE));
        flink.set(
                CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS,
                CheckpointOptions.minPause(config));
        flink.set(
                CheckpointingOptions.CHECKPOINTING_TIMEOUT, config.get(CheckpointOptions.TIMEOUT));
        flink.set(
                CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS,
                config.get(CheckpointOptions.MAX_CONCURRENT));
        flink.set(
                CheckpointingOptions.TOLERABLE_FAILURE_NUMBER,
                config.get(CheckpointOptions.TOLERABLE_FAILURES));
        flink.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                config.get(CheckpointOptions.RETENTION));
        flink.set(
                CheckpointingOptions.MAX_RETAINED_CHECKPOINTS,
                config.get(CheckpointOptions.NUM_RETAINED));
        flink.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        flink.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                location(config.get(CheckpointOptions.DIRECTORY)));
        flink.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                location(config.get(CheckpointOptions.SAVEPOINT_DIRECTORY)));

        config.getOptional(CheckpointOptions.RESTORE_FROM)
                .ifPresent(path -> flink.set(StateRecoveryOptions.SAVEPOINT_PATH, location(path)));
        flink.set(
                StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE,
                config.get(CheckpointOptions.ALLOW_NON_RESTORED_STATE));

        flink.set(
                StateBackendOptions.STATE_BACKEND,
                ConfigValidator.text(config.get(StateOptions.BACKEND)));
        flink.set(
                CheckpointingOptions.INCREMENTAL_CHECKPOINTS, config.get(StateOptions.INCREMENTAL));

        applyRestartStrategy(config, flink);
        return flink;
    }

    private static void applyRestartStrategy(ReadableConfig config, Configuration flink) {
        switch (config.get(RestartOptions.STRATEGY)) {
            case EXPONENTIAL_DELAY -> {
                flink.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
                flink.set(
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                        config.get(RestartOptions.INITIAL_DELAY));
                flink.set(
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                        config.get(RestartOptions.MAX_DELAY));
                flink.set(
                        RestartStrategyOptions
                                .RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,
                        2.0);
                flink.set(
                        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
                        config.get(RestartOptions.ATTEMPTS));
                flink.set(
                        RestartStrategyOptions
                                .RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
                        config.get(RestartOptions.RESET_AFTER));
            }
            case FIXED_DELAY -> {
                flink.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
                flink.set(
                        RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS,
                        config.get(RestartOptions.ATTEMPTS));
                flink.set(
                        RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                        config.get(RestartOptions.INITIAL_DELAY));
            }
            case NONE -> flink.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
    }

    public static String location(String value) {
        try {
            return StorageLocations.toUri(value).toString();
        } catch (URISyntaxException e) {
            // Validation rejected such values before we get here.
            throw new IllegalStateException("unvalidated storage location " + value, e);
        }
    }
}
