package io.kfp.sink;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.JobModuleContract;

/** The sink job beside the others: its kfp config, no shared Kafka names, fixed operator uids. */
class SinkModuleTest extends JobModuleContract {

    @Override
    protected JobSpec spec() {
        return SinkJob.SPEC;
    }
}
