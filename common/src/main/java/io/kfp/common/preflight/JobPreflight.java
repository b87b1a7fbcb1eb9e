package io.kfp.common.preflight;

import io.kfp.common.config.ConfigProblem;
import java.util.List;
import org.apache.flink.configuration.ReadableConfig;

/**
 * A job's own check against the cluster, run after the common ones passed (so the brokers answer
 * and the topics exist). Example: the relay's same-partition mode needs as many output partitions
 * as input partitions.
 */
@FunctionalInterface
public interface JobPreflight {

    /** Problems found; empty when the job may be submitted. */
    List<ConfigProblem> check(ReadableConfig config, BrokerView broker) throws Exception;
}
