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
        name = "submit",
        mixinStandardHelpOptions = true,
        description = {
            "Submit a job detached; prints the job id.",
            "Its options come from deploy/conf/jobs/JOB.yaml (or --config FILE); any --key value after JOB overrides them.",
            "Its module's README lists its options (e.g. relay-job/README.md); kfp jobs lists the jobs.",
            "A job that has savepoints or retained checkpoints is refused without --from or --fresh: kfp resume JOB",
            "starts it from the latest."
        })
final class SubmitCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Option(
            names = "--from",
            paramLabel = "PATH",
            description =
                    "start from this savepoint or retained checkpoint (kfp savepoints JOB lists them)")
    String from;

    @Option(
            names = "--fresh",
            description =
                    "start with empty state although the job has some: its windows or seen ids are"
                            + " gone, and its sources start from source.starting-offsets")
    boolean fresh;

    @Override
    public Integer call() {
        if (from != null && fresh) {
            throw new KfpException(
                    "--from and --fresh: a job starts from state or without; choose one.");
        }
        DeployedJob deployed = job.deployed(ctx());
        List<String> args = new ArrayList<>();
        if (from != null) {
            args.addAll(List.of("--checkpoint.restore-from", from));
        } else if (!fresh && !job.restores()) {
            ctx().submitter().refuseClashes(deployed, job.args());
            StateHistory history = ctx().submitter().history(deployed, job.args());
            history.latest().ifPresent(latest -> refuse(deployed, history, latest));
        }
        args.addAll(job.args());
        ctx().submitter().submit(deployed, args);
        return 0;
    }

    private static void refuse(DeployedJob job, StateHistory history, StateHistory.Entry latest) {
        int n = history.entries().size();
        throw new KfpException(
                job.name()
                        + " has state: "
                        + (n == 1
                                ? "a "
                                        + (latest.kind().equals("savepoint")
                                                ? "savepoint"
                                                : "retained checkpoint")
                                : n + " savepoints and retained checkpoints, the latest")
                        + " "
                        + latest.path()
                        + " ("
                        + latest.describe()
                        + "). Submitted without state, the job starts empty: its windows or seen ids"
                        + " are gone and its sources start from source.starting-offsets, reading"
                        + " input again or skipping it. Resume from the latest safe one with 'kfp"
                        + " resume "
                        + job.name()
                        + "', from another with 'kfp submit "
                        + job.name()
                        + " --from PATH' (kfp savepoints "
                        + job.name()
                        + " lists them), or start empty on purpose with 'kfp submit "
                        + job.name()
                        + " --fresh'.");
    }
}
