package io.kfp.deploy.cli;

import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.DeployedJob;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@TalksToCluster
@Command(
        name = "cancel",
        mixinStandardHelpOptions = true,
        description =
                "Cancel a job (its last checkpoint is retained: kfp resume JOB starts from it).")
final class CancelCommand extends KfpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "JOB", description = "a job: kfp jobs lists them")
    String job;

    @Override
    public Integer call() {
        DeployedJob deployed = ctx().job(job);
        try (FlinkRest rest = ctx().rest()) {
            JobID id = rest.runningJob(ctx().jobName(deployed));
            rest.cancel(id);
            ctx().out().println("cancelled " + id);
        }
        return 0;
    }
}
