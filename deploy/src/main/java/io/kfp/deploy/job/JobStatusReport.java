package io.kfp.deploy.job;

import io.kfp.common.config.JobOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.deploy.kafka.Topics;
import io.kfp.ops.offsets.ConsumerLag;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;

/**
 * {@code kfp status}'s view of one job: its state on the cluster, its last checkpoint, its rates,
 * the true lag of its consumer group on each input partition ({@link ConsumerLag}) and its open
 * Kafka transactions ({@link KafkaTransactions}). Gathered from the Flink REST API and Kafka's
 * Admin API; printed as a few lines and a table, the same on a terminal and in a pipe.
 */
public final class JobStatusReport {

    /** What the cluster says of the job; null fields when it does not run there. */
    public record OnCluster(
            JobID id,
            JobStatus state,
            long startMs,
            long endMs,
            long restarts,
            long lastCheckpointId,
            long lastCheckpointMs,
            long lastCheckpointDurationMs,
            long lastCheckpointBytes,
            long completedCheckpoints,
            long failedCheckpoints,
            double recordsInPerSecond,
            double recordsOutPerSecond,
            long recordsIn,
            long recordsOut,
            long atMs) {}

    /**
     * One job: {@code cluster} null when no job of its name is known to the cluster, {@code lag}
     * null for a job without a Kafka input, {@code transactions} null for one that writes none.
     */
    public record View(
            long atMs,
            String job,
            String jobName,
            boolean clusterAnswers,
            OnCluster cluster,
            String group,
            List<ConsumerLag.Partition> lag,
            String prefix,
            List<KafkaTransactions.Transaction> transactions,
            String problem) {}

    /** How long each Kafka call of a screen may take. */
    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(5);

    private JobStatusReport() {}

    /**
     * The view of {@code job} as its config file says it runs; {@code rest} null when no JobManager
     * answers, {@code admin} null when Kafka does not; what could not be learned is the view's
     * {@code problem}.
     */
    static View gather(
            DeployedJob job,
            Configuration config,
            FlinkRest rest,
            Admin admin,
            Properties client,
            PrintStream out) {
        String jobName = config.get(JobOptions.NAME);
        OnCluster cluster = null;
        String problem = null;
        boolean clusterAnswers = rest != null;
        if (rest != null) {
            List<JobStatusMessage> named =
                    rest.jobs().stream().filter(j -> j.getJobName().equals(jobName)).toList();
            // The one not ended, else the latest started (jobs() is sorted by start time).
            JobStatusMessage current =
                    named.stream()
                            .filter(j -> !j.getJobState().isGloballyTerminalState())
                            .findFirst()
                            .orElse(named.isEmpty() ? null : named.get(named.size() - 1));
            if (current != null) {
                try {
                    cluster = onCluster(rest, current.getJobId());
                } catch (RuntimeException e) {
                    // One job's answer failing (a failover under way) must not cost the others
                    // their lines.
                    clusterAnswers = false;
                    problem =
                            "the JobManager did not describe "
                                    + jobName
                                    + ": "
                                    + FlinkRest.firstLine(e);
                }
            }
        }
        String group = null;
        List<ConsumerLag.Partition> lag = null;
        String prefix = null;
        List<KafkaTransactions.Transaction> transactions = null;
        if (admin != null) {
            try {
                List<String> topics = SourceOptions.topics(config);
                if (job.spec().readsKafka() && !topics.isEmpty()) {
                    group = SourceOptions.groupId(config);
                    lag = ConsumerLag.of(admin, client, group, topics);
                }
                prefix = transactionalIds(job, config);
                if (prefix != null) {
                    transactions = new KafkaTransactions(admin, out).list(prefix, false);
                }
            } catch (KfpException e) {
                // A topic not created yet: the rest of the screen still helps.
                problem = e.getMessage();
            } catch (ConsumerLag.KafkaCallException e) {
                problem =
                        e.getMessage()
                                + (e.getCause()
                                                instanceof
                                                org.apache.kafka.common.errors
                                                        .UnknownTopicOrPartitionException
                                        ? " (kfp topics create makes the jobs' topics)"
                                        : "");
            } catch (KafkaException e) {
                problem = "Kafka: " + FlinkRest.firstLine(e);
            }
        }
        return new View(
                cluster == null ? System.currentTimeMillis() : cluster.atMs(),
                job.name(),
                jobName,
                clusterAnswers,
                cluster,
                group,
                lag,
                prefix,
                transactions,
                problem);
    }

    private static OnCluster onCluster(FlinkRest rest, JobID id) {
        JobDetailsInfo details = rest.details(id);
        if (details.getJobStatus().isGloballyTerminalState()) {
            return new OnCluster(
                    id,
                    details.getJobStatus(),
                    details.getStartTime(),
                    details.getEndTime(),
                    -1,
                    -1,
                    -1,
                    -1,
                    -1,
                    -1,
                    -1,
                    Double.NaN,
                    Double.NaN,
                    -1,
                    -1,
                    System.currentTimeMillis());
        }
        Map<String, String> m =
                rest.jobMetrics(
                        id,
                        List.of(
                                "numRestarts",
                                "lastCompletedCheckpointId",
                                "lastCheckpointCompletedTimestamp",
                                "lastCheckpointDuration",
                                "lastCheckpointSize",
                                "numberOfCompletedCheckpoints",
                                "numberOfFailedCheckpoints"));
        // Records in: what the sources emit; out: what the sink writers are given to write
        // (FLIP-33's
        // operator metrics). The meters are 1 min averages; --watch divides the counters' growth
        // instead.
        Map<String, Double> io =
                rest.taskMetricSums(
                        id,
                        details.getJobVertexInfos(),
                        name -> name.matches("(" + SOURCE_OUT + "|" + WRITER_IN + ")(PerSecond)?"));
        long atMs = System.currentTimeMillis();
        double in = sum(io, SOURCE_OUT + "PerSecond");
        double out = sum(io, WRITER_IN + "PerSecond");
        return new OnCluster(
                id,
                details.getJobStatus(),
                details.getStartTime(),
                -1,
                number(m, "numRestarts"),
                number(m, "lastCompletedCheckpointId"),
                number(m, "lastCheckpointCompletedTimestamp"),
                number(m, "lastCheckpointDuration"),
                number(m, "lastCheckpointSize"),
                number(m, "numberOfCompletedCheckpoints"),
                number(m, "numberOfFailedCheckpoints"),
                in,
                out,
                count(io, SOURCE_OUT),
                count(io, WRITER_IN),
                atMs);
    }

    private static final String SOURCE_OUT = "Source__.*\\.numRecordsOut";
    private static final String WRITER_IN = ".*Writer\\.numRecordsIn";

    /** A counter's total, or -1 while the cluster has not reported it yet. */
    private static long count(Map<String, Double> metrics, String regex) {
        return metrics.keySet().stream().anyMatch(k -> k.matches(regex))
                ? (long) sum(metrics, regex)
                : -1;
    }

    private static double sum(Map<String, Double> metrics, String regex) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().matches(regex))
                .mapToDouble(Map.Entry::getValue)
                .sum();
    }

    private static long number(Map<String, String> metrics, String name) {
        String value = metrics.get(name);
        try {
            return value == null ? -1 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * One screen: each job's view, and why Kafka told nothing about any of them (null: it
     * answered).
     */
    public record Screen(List<View> views, String kafkaProblem) {
        public void print(Map<String, View> previous, PrintStream out) {
            if (kafkaProblem != null) {
                out.println("kafka: " + kafkaProblem);
            }
            views.forEach(v -> JobStatusPrinter.print(v, previous.get(v.job()), out));
        }
    }

    /**
     * The transactional ids {@code job} writes with under {@code config} (their prefix and its
     * dash); null unless its Kafka sink is exactly-once: an at-least-once one has none.
     */
    public static String transactionalIds(DeployedJob job, Configuration config) {
        return job.spec().endpoints(config).transactionalIdPrefix() == null
                ? null
                : KafkaTransactions.idsOf(config);
    }

    /** The views of {@code jobs} (or of every job with a config file), for one screen. */
    public static Screen gatherAll(KfpContext kfp, List<String> jobs) {
        List<DeployedJob> which =
                jobs.isEmpty()
                        ? kfp.jobs().built().stream()
                                .filter(j -> Files.isRegularFile(j.defaultConfig(kfp.settings())))
                                .toList()
                        : jobs.stream().map(kfp::job).toList();
        List<View> views = new ArrayList<>();
        FlinkRest rest = kfp.cluster().anyJobManagerAnswers() ? kfp.rest() : null;
        try (Admin admin = Topics.admin(kfp.settings(), KAFKA_TIMEOUT)) {
            // Once, briefly: a broker that is down must not hold every job's lines for a timeout
            // each.
            String kafkaProblem = null;
            try {
                Topics.await(
                        admin.describeCluster().clusterId(),
                        "describe the cluster at " + kfp.settings().bootstrap());
            } catch (KfpException e) {
                kafkaProblem = e.getMessage() + " (kfp kafka status)";
            }
            for (DeployedJob job : which) {
                Path file = job.defaultConfig(kfp.settings());
                views.add(
                        gather(
                                job,
                                job.settings(file, kfp.environment()),
                                rest,
                                kafkaProblem == null ? admin : null,
                                kfp.settings().kafkaClient(),
                                kfp.out()));
            }
            return new Screen(views, kafkaProblem);
        } finally {
            if (rest != null) {
                rest.close();
            }
        }
    }
}
