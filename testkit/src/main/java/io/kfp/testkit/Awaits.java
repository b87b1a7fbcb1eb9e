package io.kfp.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.runtime.minicluster.MiniCluster;

/** What the contracts wait for on the MiniCluster and the broker, and how they submit. */
final class Awaits {

    static final Duration WAIT = Duration.ofMinutes(2);

    private Awaits() {}

    /** A condition that may throw while the cluster or broker is busy. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * Waits up to {@link #WAIT} for {@code condition}; an exception counts as not yet, an assertion
     * failing inside it fails at once.
     */
    static void awaitUntil(Condition condition, String what) throws Exception {
        CommonTestUtils.waitUtil(
                () -> {
                    try {
                        return condition.holds();
                    } catch (Exception e) {
                        return false;
                    }
                },
                WAIT,
                Duration.ofMillis(100),
                "timed out waiting for " + what);
    }

    static long completedCheckpoints(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job)
                .get(30, TimeUnit.SECONDS)
                .getCheckpointStatsSnapshot()
                .getCounts()
                .getNumberOfCompletedCheckpoints();
    }

    /** Submits the job through its entry point, which must accept {@code args}. */
    static JobClient submit(JobSpec spec, List<String> args, PrintStream out) {
        EmbeddedJobs.Submitted submitted =
                EmbeddedJobs.submit(spec, args.toArray(String[]::new), out, System.err);
        assertThat(submitted.exitCode())
                .as("%s's entry point exit code (its errors are above)", spec.command())
                .isZero();
        return submitted.client();
    }
}
