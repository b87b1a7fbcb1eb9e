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
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code kfp status}'s view of one job: its state on the cluster, its last checkpoint, its rates,
 * the true lag of its consumer group on each input partition ({@link ConsumerLag}) and its open
 * Kafka transactions ({@link KafkaTransactions}). Gathered from the Flink REST API and Kafka's
 * Admin API; printed as a few lines and a table, the same on a terminal and in a pipe.
 */
public final class JobStatusReport {

    /** What the cluster says of the job; null fields when it does not run there. */
    record OnCluster(
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
                if (!job.name().equals("ingest") && !topics.isEmpty()) {
                    group = SourceOptions.groupId(config);
                    lag = ConsumerLag.of(admin, client, group, topics);
                }
                if (!job.name().equals("sink")) {
                    prefix = KafkaTransactions.idsOf(config);
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
            views.forEach(v -> JobStatusReport.print(v, previous.get(v.job()), out));
        }
    }

    /** The views of {@code jobs} (or of every job with a config file), for one screen. */
    public static Screen gatherAll(KfpContext kfp, List<String> jobs) {
        List<DeployedJob> which =
                jobs.isEmpty()
                        ? DeployedJob.NAMES.stream()
                                .map(DeployedJob::of)
                                .filter(j -> Files.isRegularFile(j.defaultConfig(kfp.settings())))
                                .toList()
                        : jobs.stream().map(DeployedJob::of).toList();
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

    /** Prints one job's view; with the {@code previous} screen's, its rates since then. */
    static void print(View v, View previous, PrintStream out) {
        long nowMs = v.atMs();
        OnCluster c = v.cluster();
        if (!v.clusterAnswers()) {
            out.printf(
                    Locale.ROOT,
                    "%s: state unknown - no JobManager answers (kfp cluster status)%n",
                    v.jobName());
        } else if (c == null) {
            out.printf(
                    Locale.ROOT, "%s: not on the cluster (kfp submit %s)%n", v.jobName(), v.job());
        } else if (c.state().isGloballyTerminalState()) {
            out.printf(
                    Locale.ROOT,
                    "%s: not running - %s %s ago (job %s)%n",
                    v.jobName(),
                    c.state(),
                    ago(nowMs, c.endMs()),
                    c.id());
        } else {
            out.printf(
                    Locale.ROOT,
                    "%s: %s for %s, %d restart%s (job %s)%n",
                    v.jobName(),
                    c.state(),
                    ago(nowMs, c.startMs()),
                    c.restarts(),
                    c.restarts() == 1 ? "" : "s",
                    c.id());
            out.printf(
                    Locale.ROOT,
                    "  checkpoint  %s%n",
                    c.lastCheckpointMs() <= 0
                            ? "none completed yet"
                            : String.format(
                                    Locale.ROOT,
                                    "#%d completed %s ago in %d ms, %s; %d completed, %d failed",
                                    c.lastCheckpointId(),
                                    ago(nowMs, c.lastCheckpointMs()),
                                    c.lastCheckpointDurationMs(),
                                    bytes(c.lastCheckpointBytes()),
                                    c.completedCheckpoints(),
                                    c.failedCheckpoints()));
            OnCluster before = previous == null ? null : previous.cluster();
            // Counters start again at 0 when the job restarts: then the meters, not a negative
            // rate.
            if (before != null
                    && before.id().equals(c.id())
                    && before.restarts() == c.restarts()
                    && before.recordsIn() >= 0
                    && c.recordsIn() >= before.recordsIn()
                    && c.recordsOut() >= before.recordsOut()
                    && c.atMs() > before.atMs()) {
                double seconds = (c.atMs() - before.atMs()) / 1000.0;
                out.printf(
                        Locale.ROOT,
                        "  records     %s/s in, %s/s out (last %.0f s)%n",
                        rate((c.recordsIn() - before.recordsIn()) / seconds),
                        rate((c.recordsOut() - before.recordsOut()) / seconds),
                        seconds);
            } else {
                out.printf(
                        Locale.ROOT,
                        "  records     %s/s in, %s/s out (1 min averages)%n",
                        rate(c.recordsInPerSecond()),
                        rate(c.recordsOutPerSecond()));
            }
        }
        if (v.problem() != null) {
            out.printf(Locale.ROOT, "  problem     %s%n", v.problem());
        }
        if (v.lag() != null) {
            long total =
                    v.lag().stream()
                            .mapToLong(ConsumerLag.Partition::lag)
                            .filter(l -> l >= 0)
                            .sum();
            boolean exact = v.lag().stream().allMatch(ConsumerLag.Partition::exact);
            long uncommitted = v.lag().stream().filter(p -> p.lag() == ConsumerLag.UNKNOWN).count();
            out.printf(
                    Locale.ROOT,
                    "  lag         %s%d records behind what read_committed readers see, group %s%s%n",
                    exact ? "" : "~",
                    total,
                    v.group(),
                    uncommitted == 0
                            ? ""
                            : "; no offset committed yet on "
                                    + uncommitted
                                    + " partition"
                                    + (uncommitted == 1 ? "" : "s"));
            int width =
                    Math.max(
                            "PARTITION".length(),
                            v.lag().stream()
                                    .mapToInt(p -> p.partition().toString().length())
                                    .max()
                                    .orElse(0));
            String row = "    %-" + width + "s  %12s  %12s  %10s  %s%n";
            out.printf(
                    Locale.ROOT,
                    row,
                    "PARTITION",
                    "COMMITTED",
                    "LAST STABLE",
                    "LAG",
                    "HELD BACK BY AN OPEN TRANSACTION");
            for (ConsumerLag.Partition p : v.lag()) {
                out.printf(
                        Locale.ROOT,
                        row,
                        p.partition(),
                        p.committed() < 0 ? "none" : String.valueOf(p.committed()),
                        p.stable(),
                        p.lag() == ConsumerLag.UNKNOWN ? "-" : (p.exact() ? "" : "~") + p.lag(),
                        p.heldBack() == 0 ? "-" : p.heldBack() + " offsets");
            }
        }
        if (v.transactions() != null) {
            if (v.transactions().isEmpty()) {
                out.printf(Locale.ROOT, "  transactions  none open of %s*%n", v.prefix());
            } else {
                out.printf(
                        Locale.ROOT,
                        "  transactions  %d open of %s*:%n",
                        v.transactions().size(),
                        v.prefix());
                for (KafkaTransactions.Transaction t :
                        v.transactions().stream()
                                .sorted(
                                        Comparator.comparingLong(
                                                KafkaTransactions.Transaction::startedMs))
                                .toList()) {
                    Duration age = t.age(nowMs);
                    out.printf(
                            Locale.ROOT,
                            "    %s  %s  %s  holds back %s%n",
                            t.transactionalId(),
                            t.state(),
                            age == null ? "-" : TimeUtils.formatWithHighestUnit(age.withNanos(0)),
                            t.partitions().isEmpty()
                                    ? "nothing yet"
                                    : t.partitions().stream()
                                            .map(TopicPartition::toString)
                                            .collect(Collectors.joining(", ")));
                }
            }
        }
    }

    private static String ago(long nowMs, long thenMs) {
        Duration d = Duration.ofMillis(Math.max(0, nowMs - thenMs));
        return d.toSeconds() < 60
                ? d.toSeconds() + " s"
                : d.toMinutes() < 60
                        ? d.toMinutes() + " min " + d.toSecondsPart() + " s"
                        : d.toHours() + " h " + d.toMinutesPart() + " min";
    }

    private static String rate(double perSecond) {
        return Double.isNaN(perSecond) ? "-" : String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    private static String bytes(long n) {
        return n < 0
                ? "size unknown"
                : n < 10_000 ? n + " B" : n < 10_000_000 ? n / 1000 + " kB" : n / 1_000_000 + " MB";
    }
}
