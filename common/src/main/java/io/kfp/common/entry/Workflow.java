package io.kfp.common.entry;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** A job's graph: what it adds to an environment. Running it is {@link StreamEnvironments}' job. */
@FunctionalInterface
public interface Workflow {

    void addTo(StreamExecutionEnvironment env);
}
