package io.kfp.deploy.job;

import io.kfp.deploy.job.JobStatusReport.OnCluster;
import io.kfp.deploy.job.JobStatusReport.View;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.ops.offsets.ConsumerLag;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.common.TopicPartition;

/**
 * Prints a {@link JobStatusReport.View}: a few lines and a table, the same on a terminal and in a
 * pipe.
 */
final class JobStatusPrinter {

    private JobStatusPrinter() {}

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
