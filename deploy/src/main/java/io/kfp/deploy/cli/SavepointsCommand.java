package io.kfp.deploy.cli;

import io.kfp.common.config.JobOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.StateHistory;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@TalksToCluster
@Command(
        name = "savepoints",
        mixinStandardHelpOptions = true,
        description = {
            "List a job's savepoints and retained checkpoints, newest first: when, why (kfp stop, kfp upgrade, periodic),",
            "of which version, and whether one is older than the job's transaction timeout.",
            "With --keep or --keep-for, delete the others from their store (local disk or S3)."
        })
final class SavepointsCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Option(
            names = "--keep",
            paramLabel = "N",
            description =
                    "delete all but the newest N (and those --keep-for keeps); the newest safe one and a running job's own checkpoints are always kept")
    Integer keep;

    @Option(
            names = "--keep-for",
            paramLabel = "DURATION",
            description =
                    "delete those older than DURATION (e.g. 7d, 12h) that --keep does not keep")
    String keepFor;

    @Option(
            names = "--dry-run",
            description = "say what --keep / --keep-for would delete; delete nothing")
    boolean dryRun;

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

    @Override
    public Integer call() {
        DeployedJob deployed = job.deployed(ctx());
        Optional<Duration> keepDuration =
                Optional.ofNullable(keepFor).map(SavepointsCommand::duration);
        if (keep != null && keep < 1) {
            throw new KfpException("--keep " + keep + ": keep at least 1.");
        }
        StateHistory history = ctx().submitter().history(deployed, job.args());
        if (keep != null || keepFor != null) {
            retain(deployed, history, keepDuration);
            history = ctx().submitter().history(deployed, job.args());
        } else if (dryRun) {
            throw new KfpException("--dry-run goes with --keep or --keep-for.");
        }
        print(deployed, history);
        return 0;
    }

    private void retain(DeployedJob deployed, StateHistory history, Optional<Duration> keepFor) {
        // A running job's checkpoints are Flink's to subsume: never deleted under it.
        String name = ctx().submitter().configuration(deployed, job.args()).get(JobOptions.NAME);
        List<String> running;
        try (var rest = ctx().rest()) {
            running =
                    FlinkRest.notEnded(rest.jobs(), name).stream()
                            .map(j -> "/" + j.getJobId() + "/")
                            .toList();
        }
        List<StateHistory.Entry> delete =
                history.beyond(
                        keep == null ? OptionalInt.empty() : OptionalInt.of(keep),
                        keepFor,
                        e -> running.stream().anyMatch(e.path()::contains));
        if (delete.isEmpty()) {
            ctx().out().println("nothing to delete.");
            return;
        }
        for (StateHistory.Entry e : delete) {
            ctx().out()
                    .println(
                            (dryRun ? "would delete " : "deleting ")
                                    + e.path()
                                    + " ("
                                    + e.describe()
                                    + ")");
        }
        if (dryRun) {
            return;
        }
        List<String> paths = delete.stream().map(StateHistory.Entry::path).toList();
        ctx().submitter().deleteStates(deployed, paths);
        // What the store still holds; a savepoint deleted by hand is forgotten too.
        List<String> left =
                history.entries().stream()
                        .map(StateHistory.Entry::path)
                        .filter(p -> !paths.contains(p))
                        .toList();
        List<String> jars = new io.kfp.deploy.job.JobJars(ctx().settings()).forget(deployed, left);
        ctx().out()
                .println(
                        "deleted "
                                + delete.size()
                                + (delete.size() == 1 ? " state" : " states")
                                + (jars.isEmpty()
                                        ? ""
                                        : " and the kept jars of " + String.join(", ", jars))
                                + ".");
    }

    private void print(DeployedJob deployed, StateHistory history) {
        if (history.entries().isEmpty()) {
            ctx().out().println(deployed.name() + " has no savepoint or retained checkpoint.");
            return;
        }
        ctx().out()
                .printf(
                        "%-10s  %-19s  %12s  %-8s  %-42s  %s%n",
                        "KIND", "WRITTEN (UTC)", "AGE", "WHY", "VERSION", "PATH");
        boolean atRisk = false;
        for (StateHistory.Entry e : history.entries()) {
            atRisk |= e.tooOld();
            ctx().out()
                    .printf(
                            "%-10s  %-19s  %12s  %-8s  %-42s  %s%s%n",
                            e.kind(),
                            TIME.format(Instant.ofEpochMilli(e.writtenAt())),
                            StateHistory.age(e.age()),
                            e.reason(),
                            e.version(),
                            e.path(),
                            e.tooOld() ? "  (!)" : "");
        }
        if (atRisk) {
            ctx().out()
                    .println(
                            "(!) older than sink.transaction-timeout ("
                                    + TimeUtils.formatWithHighestUnit(
                                            history.transactionTimeout().orElseThrow())
                                    + "): transactions it had not committed when the job ended"
                                    + " are aborted by the broker; resuming from it loses their"
                                    + " records (the job names each, per sink.lost-transactions).");
        }
    }

    private static Duration duration(String value) {
        try {
            return TimeUtils.parseDuration(value);
        } catch (IllegalArgumentException e) {
            throw new KfpException(
                    "--keep-for " + value + ": not a duration; e.g. 7d, 12h, 30min.");
        }
    }
}
