package io.kfp.deploy.kafka;

import io.kfp.common.kafka.KafkaSinkOptions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code kfp transactions list|abort}: the transactions of a transactional id prefix as the
 * coordinators know them, and the end of the open ones. An open transaction holds back the last
 * stable offset of every partition it wrote to, so {@code read_committed} readers of those
 * partitions (the next job, the sink) see nothing newer until it ends - by its producer, by the
 * broker at its timeout, or here. Aborting fences the transactional id ({@code
 * Admin.fenceProducers}): the coordinator bumps its epoch and aborts what is open, and a producer
 * still using the id gets {@code ProducerFencedException} on its next call.
 */
public final class KafkaTransactions {

    /**
     * Transactions that have not ended: an abort ends the Ongoing ones, the Prepare* ones end by
     * themselves.
     */
    static final Set<TransactionState> OPEN =
            Set.of(
                    TransactionState.ONGOING,
                    TransactionState.PREPARE_COMMIT,
                    TransactionState.PREPARE_ABORT);

    public record Transaction(
            String transactionalId,
            TransactionState state,
            long producerId,
            int producerEpoch,
            int coordinator,
            long startedMs,
            Set<TopicPartition> partitions) {

        /** How long it has been open, or null when it is not (or the coordinator does not say). */
        public Duration age(long nowMs) {
            return startedMs < 0 || !OPEN.contains(state)
                    ? null
                    : Duration.ofMillis(Math.max(0, nowMs - startedMs));
        }
    }

    private final Admin admin;
    private final PrintStream out;

    public KafkaTransactions(Admin admin, PrintStream out) {
        this.admin = admin;
        this.out = out;
    }

    /**
     * The transactions whose id starts with {@code prefix}, by id; only the open ones unless {@code
     * all}.
     */
    public List<Transaction> list(String prefix, boolean all) {
        ListTransactionsOptions options = new ListTransactionsOptions();
        if (!all) {
            options.filterStates(OPEN);
        }
        List<String> ids =
                Topics.await(admin.listTransactions(options).all(), "list the transactions")
                        .stream()
                        .map(TransactionListing::transactionalId)
                        .filter(id -> id.startsWith(prefix))
                        .sorted()
                        .toList();
        if (ids.isEmpty()) {
            return List.of();
        }
        Map<String, TransactionDescription> described =
                Topics.await(admin.describeTransactions(ids).all(), "describe the transactions");
        List<Transaction> transactions = new ArrayList<>();
        for (String id : ids) {
            TransactionDescription d = described.get(id);
            if (d != null && (all || OPEN.contains(d.state()))) {
                Set<TopicPartition> partitions =
                        new TreeSet<>(
                                Comparator.comparing(TopicPartition::topic)
                                        .thenComparingInt(TopicPartition::partition));
                partitions.addAll(d.topicPartitions());
                transactions.add(
                        new Transaction(
                                id,
                                d.state(),
                                d.producerId(),
                                d.producerEpoch(),
                                d.coordinatorId(),
                                d.transactionStartTimeMs().orElse(-1),
                                partitions));
            }
        }
        return transactions;
    }

    /** Prints them as a table, or says there are none. */
    public void print(String prefix, List<Transaction> transactions, boolean all) {
        if (transactions.isEmpty()) {
            out.println("no " + (all ? "" : "open ") + "transaction of prefix " + prefix);
            return;
        }
        long now = System.currentTimeMillis();
        int width =
                Math.max(
                        "TRANSACTIONAL ID".length(),
                        transactions.stream()
                                .mapToInt(t -> t.transactionalId().length())
                                .max()
                                .orElse(0));
        String format = "%-" + width + "s  %-15s  %8s  %11s  %5s  %s%n";
        out.printf(
                Locale.ROOT,
                format,
                "TRANSACTIONAL ID",
                "STATE",
                "AGE",
                "PRODUCER ID",
                "EPOCH",
                "PARTITIONS (last stable offset held back while open)");
        for (Transaction t : transactions) {
            Duration age = t.age(now);
            out.printf(
                    Locale.ROOT,
                    format,
                    t.transactionalId(),
                    t.state(),
                    age == null ? "-" : TimeUtils.formatWithHighestUnit(age.withNanos(0)),
                    t.producerId(),
                    t.producerEpoch(),
                    t.partitions().isEmpty()
                            ? "-"
                            : t.partitions().stream()
                                    .map(TopicPartition::toString)
                                    .collect(Collectors.joining(", ")));
        }
    }

    /**
     * Aborts the Ongoing transactions among {@code transactions} that have been open at least
     * {@code olderThan}, by fencing their ids; returns the ids fenced.
     */
    public List<String> abort(List<Transaction> transactions, Duration olderThan) {
        long now = System.currentTimeMillis();
        List<Transaction> targets =
                transactions.stream()
                        .filter(t -> t.state() == TransactionState.ONGOING)
                        .filter(t -> t.age(now) == null || t.age(now).compareTo(olderThan) >= 0)
                        .toList();
        if (targets.isEmpty()) {
            return List.of();
        }
        List<String> ids = targets.stream().map(Transaction::transactionalId).toList();
        Topics.await(admin.fenceProducers(ids).all(), "fence the transactional ids " + ids);
        for (Transaction t : targets) {
            out.println(
                    "aborted "
                            + t.transactionalId()
                            + " (producer id "
                            + t.producerId()
                            + ", epoch "
                            + t.producerEpoch()
                            + " fenced): "
                            + (t.partitions().isEmpty()
                                    ? "it had written nothing"
                                    : t.partitions().stream()
                                                    .map(TopicPartition::toString)
                                                    .collect(Collectors.joining(", "))
                                            + " no longer held back"));
        }
        return ids;
    }

    /**
     * Which of the {@code running} jobs (job name -> transactional id prefix) may own transactions
     * of {@code prefix}.
     */
    /**
     * What every transactional id of a job with {@code config} starts with: the connector names
     * them PREFIX-SUBTASK-N, and the dash keeps another job's longer prefix out.
     */
    public static String idsOf(Configuration config) {
        return KafkaSinkOptions.transactionalIdPrefix(config) + "-";
    }

    public static List<String> owners(String prefix, Map<String, String> running) {
        return running.entrySet().stream()
                .filter(e -> e.getValue().startsWith(prefix) || prefix.startsWith(e.getValue()))
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }
}
