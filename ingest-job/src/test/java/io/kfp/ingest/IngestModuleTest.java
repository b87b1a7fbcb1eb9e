package io.kfp.ingest;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.JobModuleContract;

/** The ingest job beside the others: its kfp config, no shared Kafka names, fixed operator uids. */
class IngestModuleTest extends JobModuleContract {

    @Override
    protected JobSpec spec() {
        return IngestJob.SPEC;
    }
}
