package io.kfp.common.entry;

import io.kfp.common.checkpoint.FaultTolerance;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** The execution environment of a job, with our checkpoint, state and restart settings applied. */
public final class StreamEnvironments {

    private StreamEnvironments() {}

    /**
     * The environment the job runs in: the cluster's when submitted with {@code flink run}, a
     * local one otherwise. Our settings override the cluster's defaults for this job only.
     */
    public static StreamExecutionEnvironment forJob(ReadableConfig config) {
        Configuration flink = FaultTolerance.flinkConfiguration(config);
        return StreamExecutionEnvironment.getExecutionEnvironment(flink);
    }
}
