package io.kfp.relay;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.JobModuleContract;

/** The relay job beside the others: its kfp config, no shared Kafka names, fixed operator uids. */
class RelayModuleTest extends JobModuleContract {

    @Override
    protected JobSpec spec() {
        return RelayJob.SPEC;
    }
}
