package io.kfp.dedup;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.JobModuleContract;

/** The job beside the others: its README, its kfp config, no shared Kafka names, fixed uids. */
class DedupModuleTest extends JobModuleContract {

    @Override
    protected JobSpec spec() {
        return DedupJob.SPEC;
    }
}
