package io.kfp.deploy.cli;

import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.JobJars;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@TalksToCluster
@Command(
        name = "stop",
        mixinStandardHelpOptions = true,
        description = "Stop a job with a savepoint; prints the savepoint's path.")
final class StopCommand extends KfpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "JOB", description = "a job: kfp jobs lists them")
    String job;

    @Option(
            names = "--savepoint",
            paramLabel = "DIR",
            description = "where to write it (default: the job's checkpoint.savepoint-dir)")
    String savepoint;

    @Override
    public Integer call() {
        DeployedJob deployed = ctx().job(job);
        try (FlinkRest rest = ctx().rest()) {
            JobID id = rest.runningJob(ctx().jobName(deployed));
            String taken =
                    rest.stopWithSavepoint(
                            id,
                            savepoint == null
                                    ? ctx().submitter().savepointDirectory(deployed, List.of())
                                    : ctx().settings().absolute(savepoint));
            new JobJars(ctx().settings()).recordSavepoint(deployed, taken, "stop");
            ctx().out().println(taken);
        }
        return 0;
    }
}
