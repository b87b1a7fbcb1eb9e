package io.kfp.deploy.cli;

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
        description =
                "Submit a job again, starting from a savepoint or retained checkpoint; prints the job id.")
final class ResumeCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Option(
            names = "--from",
            required = true,
            paramLabel = "PATH",
            description = "the savepoint or retained checkpoint (.../savepoint-..., .../chk-N)")
    String from;

    @Override
    public Integer call() {
        List<String> args = new ArrayList<>(List.of("--checkpoint.restore-from", from));
        args.addAll(job.args());
        ctx().submitter().submit(job.deployed(ctx()), args);
        return 0;
    }
}
