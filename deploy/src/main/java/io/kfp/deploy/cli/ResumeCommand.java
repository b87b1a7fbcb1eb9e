package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.StateHistory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@TalksToCluster
@Command(
        name = "resume",
        mixinStandardHelpOptions = true,
        description = {
            "Submit a job again from a savepoint or retained checkpoint; prints the job id.",
            "Without --from: from the latest one that resumes without loss (kfp savepoints JOB lists them)."
        })
final class ResumeCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Option(
            names = "--from",
            paramLabel = "PATH",
            description = "the savepoint or retained checkpoint (.../savepoint-..., .../chk-N)")
    String from;

    @Override
    public Integer call() {
        DeployedJob deployed = job.deployed(ctx());
        String start = from;
        if (start == null) {
            ctx().submitter().refuseClashes(deployed, job.args());
            StateHistory history = ctx().submitter().history(deployed, job.args());
            StateHistory.Entry latest =
                    history.latestSafe().orElseThrow(() -> nothingSafe(deployed, history));
            start = latest.path();
            ctx().err()
                    .println(
                            "resuming "
                                    + deployed.name()
                                    + " from "
                                    + start
                                    + " ("
                                    + latest.describe()
                                    + ")");
        }
        List<String> args = new ArrayList<>(List.of("--checkpoint.restore-from", start));
        args.addAll(job.args());
        ctx().submitter().submit(deployed, args);
        return 0;
    }

    private static KfpException nothingSafe(DeployedJob job, StateHistory history) {
        if (history.entries().isEmpty()) {
            return new KfpException(
                    job.name()
                            + " has no savepoint or retained checkpoint to resume from: start it with"
                            + " 'kfp submit "
                            + job.name()
                            + "', or name one with --from PATH.");
        }
        StateHistory.Entry latest = history.latest().orElseThrow();
        return new KfpException(
                "every savepoint and retained checkpoint of "
                        + job.name()
                        + " is older than its sink.transaction-timeout: resuming loses the records of"
                        + " transactions the broker has aborted since. The latest is "
                        + latest.path()
                        + " ("
                        + latest.describe()
                        + "); resume from it knowingly with --from PATH, or start empty with 'kfp"
                        + " submit "
                        + job.name()
                        + " --fresh'.");
    }
}
