package io.kfp.relay;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.ExactlyOnceContract;

/** The relay, as deployed, under the exactly-once contract: a byte-for-byte copy. */
class RelayContractTest extends ExactlyOnceContract {

    @Override
    protected JobSpec spec() {
        return RelayJob.SPEC;
    }
}
