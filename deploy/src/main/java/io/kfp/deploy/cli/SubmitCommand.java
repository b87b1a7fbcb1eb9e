package io.kfp.deploy.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@TalksToCluster
@Command(
        name = "submit",
        mixinStandardHelpOptions = true,
        description = {
            "Submit a job detached; prints the job id.",
            "Its options come from deploy/conf/jobs/JOB.yaml (or --config FILE); any --key value after JOB overrides them.",
            "Its module's README lists its options (e.g. relay-job/README.md); kfp jobs lists the jobs."
        })
final class SubmitCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Override
    public Integer call() {
        ctx().submitter().submit(job.deployed(ctx()), job.args());
        return 0;
    }
}
