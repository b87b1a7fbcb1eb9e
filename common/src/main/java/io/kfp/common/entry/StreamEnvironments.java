package io.kfp.common.entry;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.checkpoint.FaultTolerance;
import io.kfp.common.config.JobOptions;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The execution environment of a job, with our checkpoint, state and restart settings applied. */
public final class StreamEnvironments {

    private static final Logger LOG = LoggerFactory.getLogger(StreamEnvironments.class);

    private StreamEnvironments() {}

    /**
     * {@code config} with every listener of an in-process cluster (MiniCluster) on loopback: REST,
     * RPC, and the blob server, which binds to {@code jobmanager.bind-host}, else to every
     * interface. For the embedded runner and the tests; a standalone cluster is configured by its
     * own config.yaml.
     */
    public static Configuration loopbackOnly(Configuration config) {
        config.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        config.set(RestOptions.ADDRESS, "127.0.0.1");
        config.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        config.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        config.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        config.set(TaskManagerOptions.HOST, "127.0.0.1");
        return config;
    }

    /** Builds {@code workflow} in the job's environment and runs it until it ends. */
    public static JobExecutionResult execute(ReadableConfig config, Workflow workflow)
            throws Exception {
        StreamExecutionEnvironment env = forJob(config);
        workflow.addTo(env);
        return env.execute(config.get(JobOptions.NAME));
    }

    /** Builds {@code workflow} in the job's environment and submits it without waiting. */
    public static JobClient executeAsync(ReadableConfig config, Workflow workflow)
            throws Exception {
        StreamExecutionEnvironment env = forJob(config);
        workflow.addTo(env);
        return env.executeAsync(config.get(JobOptions.NAME));
    }

    /** The job graph {@code workflow} would be submitted as, built without running anything. */
    public static JobGraph jobGraph(ReadableConfig config, Workflow workflow) {
        StreamExecutionEnvironment env = forJob(config);
        workflow.addTo(env);
        return env.getStreamGraph(false).getJobGraph();
    }

    /**
     * The environment the job runs in: the cluster's when submitted with {@code flink run}, a local
     * one otherwise. Our settings override the cluster's defaults for this job only; what a job
     * itself needs of its environment its workflow sets.
     */
    private static StreamExecutionEnvironment forJob(ReadableConfig config) {
        Configuration flink = FaultTolerance.flinkConfiguration(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        if (!config.get(CheckpointOptions.ENABLED)
                && env.getCheckpointConfig().isCheckpointingEnabled()) {
            LOG.warn(
                    "checkpoint.enabled=false, but the cluster's configuration sets"
                            + " execution.checkpointing.interval, so this job is checkpointed"
                            + " anyway. Remove it from the cluster configuration to run without"
                            + " checkpoints.");
        }
        return env;
    }
}
