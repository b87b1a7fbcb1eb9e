package io.kfp.ops.jobs;

import io.kfp.common.entry.JobEndpoints;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * What two jobs on one Kafka must never share without saying so: a consumer group (they would split
 * the partitions between them and commit each other's offsets), a transactional-id prefix (each
 * start of one fences and aborts the other's open transactions, without a word), and an output
 * topic (their records interleave; fine only when both declare {@code sink.shared-topic}). Checked
 * over every job module in the build and at {@code kfp submit}.
 */
public final class JobOwnership {

    /** A job under one configuration. */
    public record Declared(String job, JobEndpoints endpoints) {}

    private JobOwnership() {}

    /** Each conflict between two of {@code jobs}, in one sentence naming both and the setting. */
    public static List<String> conflicts(List<Declared> jobs) {
        List<String> conflicts = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            for (int j = i + 1; j < jobs.size(); j++) {
                conflicts.addAll(conflicts(jobs.get(i), jobs.get(j)));
            }
        }
        return conflicts;
    }

    /** The conflicts of {@code job} with each of {@code others}. */
    public static List<String> conflicts(Declared job, List<Declared> others) {
        List<String> conflicts = new ArrayList<>();
        for (Declared other : others) {
            conflicts.addAll(conflicts(job, other));
        }
        return conflicts;
    }

    static List<String> conflicts(Declared a, Declared b) {
        List<String> conflicts = new ArrayList<>();
        JobEndpoints x = a.endpoints();
        JobEndpoints y = b.endpoints();
        if (x.consumerGroup() != null && x.consumerGroup().equals(y.consumerGroup())) {
            conflicts.add(
                    a.job()
                            + " and "
                            + b.job()
                            + " read in one consumer group, "
                            + x.consumerGroup()
                            + " ("
                            + SourceOptions.CONSUMER_GROUP.key()
                            + "): they would split the partitions and commit each other's offsets."
                            + " Give one its own "
                            + SourceOptions.CONSUMER_GROUP.key()
                            + " (or job.name).");
        }
        String p = x.transactionalIdPrefix();
        String q = y.transactionalIdPrefix();
        // Raw string prefixes, not prefix + "-": a sink with sink.transaction-naming pooling finds
        // the transactions to abort as it starts by listing the open ones and keeping each whose
        // id starts with its prefix (the connector's TransactionAbortStrategyImpl.LISTING).
        if (p != null && q != null && (p.startsWith(q) || q.startsWith(p))) {
            conflicts.add(
                    a.job()
                            + " and "
                            + b.job()
                            + " write with transactional ids "
                            + (p.equals(q)
                                    ? "of one prefix, " + p
                                    : p + " and " + q + ", one the start of the other")
                            + " ("
                            + KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX.key()
                            + "): each start of one would fence and abort the other's open"
                            + " transactions (with "
                            + KafkaSinkOptions.TRANSACTION_NAMING.key()
                            + " pooling, any id that starts with its prefix). Give one its own "
                            + KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX.key()
                            + ".");
        }
        for (String topic : x.outputTopics()) {
            if (y.outputTopics().contains(topic) && !(x.sharedTopic() && y.sharedTopic())) {
                conflicts.add(
                        a.job()
                                + " and "
                                + b.job()
                                + " both write topic "
                                + topic
                                + " ("
                                + KafkaSinkOptions.TOPIC.key()
                                + "): their records would interleave. If that is meant, set "
                                + KafkaSinkOptions.SHARED_TOPIC.key()
                                + ": true in both jobs' configs; otherwise give one another topic.");
            }
        }
        return conflicts;
    }
}
