package io.kfp.common.kafka;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.util.TimeUtils;

/**
 * The two ways an exactly-once sink's transaction timeout goes wrong, checked before the job starts
 * instead of after a task fails:
 *
 * <ul>
 *   <li>above the broker's {@code transaction.max.timeout.ms}: the broker refuses to start any
 *       transaction ({@code InvalidTxnTimeoutException}) and the job restarts until it fails;
 *   <li>not longer than a checkpoint can take: a transaction opened after one checkpoint must
 *       survive until the next one completes, else the broker aborts it and its records are lost.
 * </ul>
 *
 * <p>Both checks and both messages live here, beside the option they guard ({@link
 * KafkaSinkOptions#TRANSACTION_TIMEOUT}): its validation asks the first, the broker preflight the
 * second with the value the broker reports.
 */
public final class TransactionTimeout {

    /** Slack for the commit after checkpoint completion, GC pauses and clock drift. */
    public static final Duration MARGIN = Duration.ofMinutes(1);

    /** What is wrong and what to do. */
    public record Finding(String problem, String fix) {}

    private TransactionTimeout() {}

    /**
     * The longest a transaction can stay open before a checkpoint commits it, plus margin: the
     * checkpoint that pre-commits it and each of the {@code tolerableFailures} after it may fail,
     * each after up to interval + min pause + timeout, before one completes.
     */
    public static Duration requiredTimeout(
            Duration interval,
            Duration minPause,
            Duration checkpointTimeout,
            int tolerableFailures) {
        return interval.plus(minPause)
                .plus(checkpointTimeout)
                .multipliedBy(tolerableFailures + 1L)
                .plus(MARGIN);
    }

    public static Optional<Finding> checkAgainstCheckpointing(
            Duration transactionTimeout,
            Duration interval,
            Duration minPause,
            Duration checkpointTimeout,
            int tolerableFailures) {
        Duration required =
                requiredTimeout(interval, minPause, checkpointTimeout, tolerableFailures);
        if (transactionTimeout.compareTo(required) > 0) {
            return Optional.empty();
        }
        String cycle =
                "checkpoint.interval ("
                        + format(interval)
                        + ") + checkpoint.min-pause ("
                        + format(minPause)
                        + ") + checkpoint.timeout ("
                        + format(checkpointTimeout)
                        + ")";
        return Optional.of(
                new Finding(
                        "a transaction may stay open up to "
                                + (tolerableFailures == 0
                                        ? cycle
                                        : (tolerableFailures + 1)
                                                + " x ("
                                                + cycle
                                                + "), checkpoint.tolerable-failures ("
                                                + tolerableFailures
                                                + ") failing in a row before one completes,")
                                + " + "
                                + format(MARGIN)
                                + " margin = "
                                + format(required)
                                + " before its checkpoint commits it; with a timeout of "
                                + format(transactionTimeout)
                                + " the broker would abort it first and its records would be"
                                + " lost.",
                        "raise sink.transaction-timeout above "
                                + format(required)
                                + ", or shorten checkpoint.interval / checkpoint.timeout"
                                + (tolerableFailures == 0
                                        ? ""
                                        : ", or lower checkpoint.tolerable-failures")
                                + "."));
    }

    public static Optional<Finding> checkAgainstBroker(
            Duration transactionTimeout, long brokerMaxTimeoutMs) {
        if (transactionTimeout.toMillis() <= brokerMaxTimeoutMs) {
            return Optional.empty();
        }
        Duration brokerMax = Duration.ofMillis(brokerMaxTimeoutMs);
        return Optional.of(
                new Finding(
                        "sink.transaction-timeout is "
                                + format(transactionTimeout)
                                + " ("
                                + transactionTimeout.toMillis()
                                + " ms) but the broker's transaction.max.timeout.ms is "
                                + brokerMaxTimeoutMs
                                + " ("
                                + format(brokerMax)
                                + "): the broker would refuse every transaction and the job"
                                + " would fail at its first checkpoint.",
                        "either lower sink.transaction-timeout to at most "
                                + format(brokerMax)
                                + " (keeping it above checkpoint interval + timeout + margin), or"
                                + " raise transaction.max.timeout.ms on every broker to at least "
                                + transactionTimeout.toMillis()
                                + " and restart them."));
    }

    /**
     * Flink's {@link TimeUtils#formatWithHighestUnit} ("15 min", "5 s", "500 ms"), except for what
     * it lacks: a sum of checkpoint settings such as 125.5 s reads in seconds, not as "125500 ms".
     */
    public static String format(Duration duration) {
        long ms = duration.toMillis();
        if (ms > 1000 && ms % 1000 != 0) {
            return BigDecimal.valueOf(ms).movePointLeft(3).stripTrailingZeros().toPlainString()
                    + " s";
        }
        return TimeUtils.formatWithHighestUnit(duration);
    }
}
