package io.kfp.common.kafka;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.JobOptions;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.util.TimeUtils;

/**
 * At submission: how many transactional ids an exactly-once sink with {@code incrementing} naming
 * leaves on the brokers. It begins a new id per sink subtask at every checkpoint, and a broker's
 * transaction coordinator keeps each one in memory until {@code transactional.id.expiration.ms} (7
 * days unless the brokers set it) after its last use: at short checkpoint intervals that is
 * millions of ids on the heap (brokers have run out of memory so: FLINK-34554, the reason the
 * connector has {@code pooling}).
 */
public final class TransactionalIdGrowth {

    /** Kafka's default {@code transactional.id.expiration.ms}. */
    static final Duration BROKER_EXPIRATION = Duration.ofDays(7);

    /** More ids kept than this for one job is a warning. */
    static final long LIMIT = 1_000_000;

    private TransactionalIdGrowth() {}

    /**
     * The transactional ids one job leaves on the brokers with incrementing naming: one per sink
     * subtask and checkpoint over the brokers' expiration.
     */
    static long idsKept(Duration interval, int sinkSubtasks) {
        return BROKER_EXPIRATION.toMillis() / Math.max(1, interval.toMillis()) * sinkSubtasks;
    }

    /**
     * A warning when an exactly-once sink with incrementing naming would leave more than {@link
     * #LIMIT} ids; without {@code job.parallelism} counted for one sink subtask.
     */
    public static Optional<String> warning(ReadableConfig config) {
        if (config.get(KafkaSinkOptions.DELIVERY_GUARANTEE) != DeliveryGuarantee.EXACTLY_ONCE
                || config.get(KafkaSinkOptions.TRANSACTION_NAMING)
                        != TransactionNamingStrategy.INCREMENTING) {
            return Optional.empty();
        }
        Duration interval = config.get(CheckpointOptions.INTERVAL);
        Optional<Integer> parallelism = config.getOptional(JobOptions.PARALLELISM);
        int subtasks = parallelism.orElse(1);
        long ids = idsKept(interval, subtasks);
        if (ids <= LIMIT) {
            return Optional.empty();
        }
        double perSecond = subtasks * 1000.0 / interval.toMillis();
        // the shortest interval that keeps the count at LIMIT or below
        Duration atLeast =
                Duration.ofMillis((BROKER_EXPIRATION.toMillis() * subtasks + LIMIT - 1) / LIMIT);
        return Optional.of(
                String.format(
                        Locale.ROOT,
                        "%s incrementing with %s %s: the sink begins a new transactional id per"
                                + " sink subtask at every checkpoint (%,.0f a second%s), and the"
                                + " brokers keep each in"
                                + " memory for transactional.id.expiration.ms (7 days unless they"
                                + " set it): %,d ids from this job, in the transaction"
                                + " coordinators' heap (brokers have run out of memory so:"
                                + " FLINK-34554). Use %s pooling (a few ids per subtask,"
                                + " reused; see the relay-job README for its caveats), a %s of %s"
                                + " or more, or a shorter transactional.id.expiration.ms on the"
                                + " brokers.",
                        KafkaSinkOptions.TRANSACTION_NAMING.key(),
                        CheckpointOptions.INTERVAL.key(),
                        TimeUtils.formatWithHighestUnit(interval),
                        perSecond,
                        parallelism.isPresent()
                                ? " at parallelism " + subtasks
                                : " for one subtask; job.parallelism is unset",
                        ids,
                        KafkaSinkOptions.TRANSACTION_NAMING.key(),
                        CheckpointOptions.INTERVAL.key(),
                        TimeUtils.formatWithHighestUnit(atLeast)));
    }
}
