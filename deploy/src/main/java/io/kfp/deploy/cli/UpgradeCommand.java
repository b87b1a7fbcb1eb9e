package io.kfp.deploy.cli;

import io.kfp.deploy.job.JobUpgrade;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@TalksToCluster
@Command(
        name = "upgrade",
        mixinStandardHelpOptions = true,
        description = {
            "Replace a running job with its built jar: check that the job's state restores into it, stop with a",
            "savepoint, start it from there, and roll back to the version that ran when it is not stable."
        })
final class UpgradeCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Option(
            names = "--drain",
            description =
                    "end the sources and fire every timer and window before the savepoint; for a"
                            + " last run of a job, not one that continues on the same windows")
    boolean drain;

    @Option(
            names = "--allow-non-restored-state",
            description =
                    "upgrade even when state of the running job has no operator in the new one, dropping it")
    boolean allowNonRestoredState;

    @Option(
            names = "--stable-checkpoints",
            paramLabel = "N",
            defaultValue = "3",
            description =
                    "completed checkpoints without a restart that make it stable (default: ${DEFAULT-VALUE})")
    int stableCheckpoints;

    @Option(
            names = "--within",
            paramLabel = "SECONDS",
            defaultValue = "180",
            description =
                    "how long it may take to be stable before it is rolled back (default: ${DEFAULT-VALUE})")
    long within;

    @Option(
            names = "--jar",
            paramLabel = "PATH",
            description =
                    "upgrade to this jar of the job (built elsewhere, a release) instead of the one kfp build made")
    String jar;

    @Override
    public Integer call() {
        var deployed = job.deployed(ctx());
        new JobUpgrade(ctx().settings(), ctx().submitter(), ctx()::rest, ctx().out())
                .upgrade(
                        deployed,
                        ctx().jobName(deployed),
                        job.args(),
                        new JobUpgrade.Options(
                                stableCheckpoints,
                                Duration.ofSeconds(within),
                                drain,
                                allowNonRestoredState,
                                jar == null
                                        ? null
                                        : java.nio.file.Path.of(ctx().settings().absolute(jar))));
        return 0;
    }
}
