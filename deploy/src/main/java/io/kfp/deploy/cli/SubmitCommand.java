package io.kfp.deploy.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@TalksToCluster
@Command(
        name = "submit",
        mixinStandardHelpOptions = true,
        description = {
            "Submit ingest, relay or sink detached; prints the job id.",
            "Its options come from deploy/conf/jobs/JOB.yaml (or --config FILE); any --key value after JOB overrides them.",
            "Each job's README lists its options (ingest-job/README.md, relay-job/README.md, sink-job/README.md)."
        })
final class SubmitCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Override
    public Integer call() {
        ctx().submitter().submit(job.deployed(), job.args());
        return 0;
    }
}
