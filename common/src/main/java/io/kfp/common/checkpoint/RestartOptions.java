package io.kfp.common.checkpoint;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.OptionGroup;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.util.TimeUtils;

/**
 * How often a failing job is restarted before it is declared FAILED. Always bounded: a job that can
 * never succeed (say, the broker refuses its transaction timeout) must end, with its cause in the
 * log, instead of restarting forever.
 */
public final class RestartOptions implements OptionGroup {

    public static final RestartOptions GROUP = new RestartOptions();

    /** Restart strategies we support. */
    public enum Strategy {
        /**
         * Delays growing from restart.initial-delay to restart.max-delay; the delay and the attempt
         * count start again after restart.reset-after without failure, so rare transient failures
         * never add up to a FAILED job.
         */
        EXPONENTIAL_DELAY,
        /** The same delay each time; restart.attempts counts every failure in the job's life. */
        FIXED_DELAY,
        /** Fail at the first error. */
        NONE;
    }

    public static final ConfigOption<Strategy> STRATEGY =
            key("restart.strategy")
                    .enumType(Strategy.class)
                    .defaultValue(Strategy.EXPONENTIAL_DELAY)
                    .withDescription(
                            "exponential-delay: delays double from restart.initial-delay up to"
                                    + " restart.max-delay, delay and count start again after"
                                    + " restart.reset-after without failure; fixed-delay:"
                                    + " restart.initial-delay between"
                                    + " restarts, failures count over the job's life; none.");

    public static final ConfigOption<Integer> ATTEMPTS =
            key("restart.attempts")
                    .intType()
                    .defaultValue(10)
                    .withDescription("Restarts before the job is declared FAILED. Always bounded.");

    public static final ConfigOption<Duration> INITIAL_DELAY =
            key("restart.initial-delay")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .withDescription(
                            "Delay before the first restart (fixed-delay: before every"
                                    + " restart).");

    public static final ConfigOption<Duration> MAX_DELAY =
            key("restart.max-delay")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription("Longest delay between restarts (exponential-delay).");

    public static final ConfigOption<Duration> RESET_AFTER =
            key("restart.reset-after")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(10))
                    .withDescription(
                            "exponential-delay: after this long without a failure the next one waits restart.initial-delay again and the attempt count starts again.");

    /** Above this a "bounded" strategy is unbounded in practice. */
    static final int MAX_ATTEMPTS = 10_000;

    private RestartOptions() {}

    @Override
    public String title() {
        return "Restarts";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(STRATEGY, ATTEMPTS, INITIAL_DELAY, MAX_DELAY, RESET_AFTER);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        Strategy strategy = config.get(STRATEGY);
        if (strategy == Strategy.NONE) {
            return;
        }
        int attempts = config.get(ATTEMPTS);
        if (attempts < 1 || attempts > MAX_ATTEMPTS) {
            problems.add(
                    ATTEMPTS.key(),
                    "must be between 1 and " + MAX_ATTEMPTS + " (restarts are always bounded).",
                    "use e.g. 10; to never restart set restart.strategy=none.");
        }
        if (config.get(INITIAL_DELAY).isNegative()) {
            problems.add(INITIAL_DELAY.key(), "must not be negative.", "use e.g. 1 s.");
        }
        if (strategy == Strategy.EXPONENTIAL_DELAY
                && (config.get(RESET_AFTER).isNegative() || config.get(RESET_AFTER).isZero())) {
            problems.add(
                    RESET_AFTER.key(),
                    "must be positive.",
                    "use e.g. 10 min: the time a job must run without failing before a failure counts as a new one.");
        }
        if (strategy == Strategy.EXPONENTIAL_DELAY
                && config.get(MAX_DELAY).compareTo(config.get(INITIAL_DELAY)) < 0) {
            problems.add(
                    MAX_DELAY.key(),
                    "is shorter than restart.initial-delay ("
                            + TimeUtils.formatWithHighestUnit(config.get(INITIAL_DELAY))
                            + ").",
                    "make restart.max-delay at least restart.initial-delay.");
        }
    }
}
