package io.kfp.deploy.cli;

import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.JobJars;
import io.kfp.deploy.job.StoredStates;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@TalksToCluster
@Command(
        name = "savepoints",
        mixinStandardHelpOptions = true,
        description = {
            "List a job's savepoints and retained checkpoints, newest first: when, why (kfp stop, kfp upgrade, periodic),",
            "of which version, and whether one is older than the job's transaction timeout."
        })
final class SavepointsCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

    /** 42 s, 21 min, 5 h 41 min, 3 d. */
    static String age(Duration age) {
        long s = age.toSeconds();
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min";
        }
        if (s < 48 * 3600) {
            return s / 3600 + " h " + (s % 3600) / 60 + " min";
        }
        return s / 86400 + " d";
    }

    @Override
    public Integer call() {
        DeployedJob deployed = job.deployed(ctx());
        List<StoredStates.Stored> stored =
                new ArrayList<>(ctx().submitter().storedStates(deployed, job.args()));
        stored.sort(Comparator.comparingLong(StoredStates.Stored::writtenAt).reversed());
        if (stored.isEmpty()) {
            ctx().out().println(deployed.name() + " has no savepoint or retained checkpoint.");
            return 0;
        }
        Configuration config =
                deployed.settings(
                        deployed.defaultConfig(ctx().settings()), ctx().environment(), job.args());
        Duration timeout =
                config.get(KafkaSinkOptions.DELIVERY_GUARANTEE) == DeliveryGuarantee.EXACTLY_ONCE
                                && deployed.spec().writesKafka()
                        ? config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT)
                        : null;
        Map<String, JobJars.Taken> taken = new JobJars(ctx().settings()).savepointsTaken(deployed);
        ctx().out()
                .printf(
                        "%-10s  %-19s  %12s  %-8s  %-42s  %s%n",
                        "KIND", "WRITTEN (UTC)", "AGE", "WHY", "VERSION", "PATH");
        long now = System.currentTimeMillis();
        boolean atRisk = false;
        for (StoredStates.Stored s : stored) {
            JobJars.Taken why =
                    taken.getOrDefault(
                            s.path(),
                            new JobJars.Taken(
                                    s.kind().equals("checkpoint") ? "periodic" : "-", "-"));
            Duration age = Duration.ofMillis(Math.max(0, now - s.writtenAt())).withNanos(0);
            // A savepoint of kfp stop or upgrade committed its transactions before the job ended.
            boolean old =
                    timeout != null
                            && age.compareTo(timeout) > 0
                            && !List.of("stop", "upgrade").contains(why.reason());
            atRisk |= old;
            ctx().out()
                    .printf(
                            "%-10s  %-19s  %12s  %-8s  %-42s  %s%s%n",
                            s.kind(),
                            TIME.format(Instant.ofEpochMilli(s.writtenAt())),
                            age(age),
                            why.reason(),
                            why.version(),
                            s.path(),
                            old ? "  (!)" : "");
        }
        if (atRisk) {
            ctx().out()
                    .println(
                            "(!) older than sink.transaction-timeout ("
                                    + TimeUtils.formatWithHighestUnit(timeout)
                                    + "): transactions it had not committed when the job ended"
                                    + " are aborted by the broker; resuming from it loses their"
                                    + " records (the job names each, per sink.lost-transactions).");
        }
        return 0;
    }
}
