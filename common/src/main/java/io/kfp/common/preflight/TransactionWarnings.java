package io.kfp.common.preflight;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.JobOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.util.TimeUtils;

/**
 * What the broker's open transactions of a job's prefix say before it starts: another copy of the
 * job may be writing, or a crashed one left transactions that hold its readers back. Warnings only:
 * a restart after a crash leaves the same evidence and must still start.
 */
final class TransactionWarnings {

    private TransactionWarnings() {}

    /**
     * A running job begins a transaction of its prefix at every checkpoint, so an ONGOING one that
     * began within the last three checkpoint intervals (at least 30 s) says another copy of this
     * job may be writing right now: same job.name and job.instance-id, two copies would write every
     * record twice and fence each other. Only a warning: the same evidence is left by a job of this
     * prefix that crashed moments ago, whose transactions this one aborts as it starts, and a
     * restart after a crash must still start. Older ONGOING ones are a crashed job's and no sign of
     * a second copy.
     */
    static Optional<String> secondCopyWarning(
            String prefix, Duration checkpointInterval, BrokerView view) {
        Duration recent = recentWindow(checkpointInterval);
        Map<String, Long> open;
        try {
            open = view.ongoingTransactions(prefix);
        } catch (Exception e) {
            return Optional.of(
                    "could not list the open transactions of prefix "
                            + prefix
                            + " ("
                            + e.getMessage()
                            + "): whether another copy of this job is running was not checked.");
        }
        long now = System.currentTimeMillis();
        List<String> young =
                open.entrySet().stream()
                        .filter(e -> e.getValue() >= 0 && now - e.getValue() < recent.toMillis())
                        .map(Map.Entry::getKey)
                        .toList();
        if (young.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                young.size()
                        + (young.size() == 1 ? " transaction" : " transactions")
                        + " of prefix "
                        + prefix
                        + " began less than "
                        + TimeUtils.formatWithHighestUnit(recent)
                        + " ago and "
                        + (young.size() == 1 ? "is" : "are")
                        + " still open ("
                        + String.join(", ", young.subList(0, Math.min(3, young.size())))
                        + (young.size() > 3 ? ", ..." : "")
                        + "): another copy of this job may be running. Two copies would write"
                        + " every record twice and fence each other's transactions: stop one, or give this one its own"
                        + " job.instance-id. If a job of this prefix crashed just now, these are its last transactions and this"
                        + " job aborts them as it starts.");
    }

    /**
     * ONGOING transactions this job will not abort as it starts, yet which hold back every
     * read_committed reader of the partitions they wrote to until they time out: those of another
     * prefix of this job's name (a job.instance-id no longer used) that began longer ago than a
     * running job's would have, and, with pooling naming, those of this prefix whose sink subtask
     * is beyond the job's parallelism (after a downscale; FLINK-40626). A listing that fails is
     * reported by {@link #secondCopyWarning}.
     */
    static Optional<String> lingeringWarning(ReadableConfig config, BrokerView view) {
        String prefix = KafkaSinkOptions.transactionalIdPrefix(config);
        boolean derived = config.getOptional(KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX).isEmpty();
        String scope = derived ? "kfp." + config.get(JobOptions.NAME) + "." : prefix;
        Duration recent = recentWindow(config.get(CheckpointOptions.INTERVAL));
        boolean pooling =
                config.get(KafkaSinkOptions.TRANSACTION_NAMING)
                        == TransactionNamingStrategy.POOLING;
        Optional<Integer> parallelism = config.getOptional(JobOptions.PARALLELISM);
        Map<String, Long> open;
        try {
            open = view.ongoingTransactions(scope);
        } catch (Exception e) {
            return Optional.empty();
        }
        long now = System.currentTimeMillis();
        List<String> lingering = new ArrayList<>();
        open.forEach(
                (id, began) -> {
                    if (began < 0 || now - began < recent.toMillis()) {
                        return;
                    }
                    boolean ours = id.startsWith(prefix + "-");
                    boolean superseded =
                            ours
                                    && pooling
                                    && parallelism.isPresent()
                                    && subtaskOf(id) >= parallelism.get();
                    if (!ours || superseded) {
                        lingering.add(
                                id
                                        + " (open "
                                        + TimeUtils.formatWithHighestUnit(
                                                Duration.ofSeconds((now - began) / 1000))
                                        + (superseded
                                                ? ", of a sink subtask beyond parallelism "
                                                        + parallelism.get()
                                                : "")
                                        + ")");
                    }
                });
        if (lingering.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                lingering.size()
                        + (lingering.size() == 1 ? " transaction" : " transactions")
                        + " this job will not abort "
                        + (lingering.size() == 1 ? "is" : "are")
                        + " still open: "
                        + String.join(", ", lingering.subList(0, Math.min(3, lingering.size())))
                        + (lingering.size() > 3 ? ", ..." : "")
                        + ". Until each times out, read_committed readers of the"
                        + " partitions it wrote to see nothing past it. If no running job uses its prefix any more (an old"
                        + " job.instance-id, a downscale with pooling naming), end it: kafka-transactions.sh"
                        + " --bootstrap-server ... forceTerminateTransaction --transactionalId ID.");
    }

    /**
     * The sink subtask in a connector transactional id (prefix-subtask-counter); -1 if it has none.
     */
    private static int subtaskOf(String transactionalId) {
        String[] parts = transactionalId.split("-");
        try {
            return parts.length < 3 ? -1 : Integer.parseInt(parts[parts.length - 2]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * How young an open transaction of a running job is: three checkpoint intervals, at least 30 s.
     */
    private static Duration recentWindow(Duration checkpointInterval) {
        return max(checkpointInterval.multipliedBy(3), Duration.ofSeconds(30));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
