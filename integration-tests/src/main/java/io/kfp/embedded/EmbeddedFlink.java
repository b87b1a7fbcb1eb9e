package io.kfp.embedded;

import io.kfp.common.entry.StreamEnvironments;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * A Flink MiniCluster in this JVM, installed as the environment every job's {@code
 * getExecutionEnvironment} returns, so the jobs' own {@code main} code submits to it.
 */
public final class EmbeddedFlink implements AutoCloseable {

    private final MiniCluster cluster;

    private EmbeddedFlink(MiniCluster cluster) {
        this.cluster = cluster;
    }

    /** One TaskManager with {@code slots} slots; REST on a free loopback port. */
    public static EmbeddedFlink start(int slots, int defaultParallelism) throws Exception {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        StreamEnvironments.loopbackOnly(config);
        config.set(RestOptions.BIND_PORT, "0");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(config)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(slots)
                                .build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, defaultParallelism);
        return new EmbeddedFlink(cluster);
    }

    public MiniCluster cluster() {
        return cluster;
    }

    /** Cancels every job still running and waits until none is. */
    public void cancelAll() throws Exception {
        Collection<JobStatusMessage> jobs = cluster.listJobs().get(30, TimeUnit.SECONDS);
        for (JobStatusMessage job : jobs) {
            if (!job.getJobState().isGloballyTerminalState()) {
                cluster.cancelJob(job.getJobId()).get(30, TimeUnit.SECONDS);
            }
        }
        for (JobStatusMessage job : jobs) {
            waitUntilTerminal(job.getJobId());
        }
    }

    private void waitUntilTerminal(JobID id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            JobStatus status = cluster.getJobStatus(id).get(10, TimeUnit.SECONDS);
            if (status.isGloballyTerminalState()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("job " + id + " did not stop within 60 s");
    }

    @Override
    public void close() throws Exception {
        TestStreamEnvironment.unsetAsContext();
        cluster.close();
    }
}
