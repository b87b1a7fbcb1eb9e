package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.JobUpgrade;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.client.JobStatusMessage;

/**
 * The relay under the faults: submitted on the run's own topics and transactional ids, stopped with
 * a savepoint and resumed from it, at the parallelism a rescale leaves it.
 */
final class DrillRelay {
    static final String JOB_NAME = "drill-relay";

    private final KfpContext kfp;
    private final DrillRun run;
    private final DrillClock clock;

    /** Relay options after the drill's own, e.g. a setting to try under the faults. */
    private final List<String> options;

    private int parallelism = 2;

    DrillRelay(KfpContext kfp, DrillRun run, List<String> options, DrillClock clock) {
        this.kfp = kfp;
        this.run = run;
        this.options = List.copyOf(options);
        this.clock = clock;
    }

    List<String> options() {
        return options;
    }

    /** Submits the relay on fresh topics, at parallelism 2. */
    void start() {
        submit(null);
    }

    /** Submits the relay again from {@code savepoint}, at {@code newParallelism}. */
    void resume(String savepoint, int newParallelism) {
        parallelism = newParallelism;
        submit(savepoint);
    }

    /**
     * {@code kfp upgrade} of the relay to the built jar, with the drill's options. {@code broken}:
     * the new version's checkpoint directory is in a bucket that does not exist, so it fails and
     * restarts - the upgrade must roll back to the version that ran, from the same savepoint;
     * anything else fails the drill.
     */
    void upgrade(boolean broken) {
        List<String> args = args();
        if (broken) {
            args.addAll(
                    List.of("--checkpoint.dir", "s3://kfp-no-such-bucket/checkpoints/" + JOB_NAME));
        }
        JobUpgrade upgrade = new JobUpgrade(kfp.settings(), kfp.submitter(), kfp::rest, kfp.out());
        JobUpgrade.Options options =
                new JobUpgrade.Options(3, Duration.ofMinutes(2), false, false, null);
        try {
            upgrade.upgrade(kfp.job("relay"), JOB_NAME, args, options);
        } catch (KfpException e) {
            if (!broken || !e.getMessage().startsWith("upgrade of relay rolled back:")) {
                throw e;
            }
            clock.say("  " + e.getMessage());
            return;
        }
        if (broken) {
            throw new KfpException(
                    "the upgrade to a relay whose checkpoints fail was called stable: it should"
                            + " have been rolled back",
                    KfpException.FAILED);
        }
    }

    private void submit(String restoreFrom) {
        List<String> args = args();
        if (restoreFrom == null && kfp.settings().kafkaSecurity().enabled()) {
            // On the secure brokers the relay logs in as User:relay: it gets exactly what this
            // run's topics and prefix need.
            kfp.submitter().grantAcls(kfp.job("relay"), args, "User:relay");
        }
        if (restoreFrom != null) {
            args.addAll(List.of("--checkpoint.restore-from", restoreFrom));
        }
        kfp.submitter().submit(kfp.job("relay"), args);
    }

    /** The relay's options in this run, at its current parallelism. */
    private List<String> args() {
        FlinkCluster cluster = kfp.cluster();
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--job.name",
                                JOB_NAME,
                                "--source.topics",
                                run.input(),
                                "--sink.topic",
                                run.output(),
                                "--checkpoint.interval",
                                "1 s",
                                "--job.parallelism",
                                String.valueOf(parallelism),
                                // The drill's faults come a minute apart, a cluster's are days
                                // apart: each one's restart is measured as the first of its
                                // incident, not as the next of a crash loop.
                                "--restart.reset-after",
                                "30 s",
                                // A prefix of its own per run: the sink's recovery probes every
                                // transactional id an earlier run of the same prefix used on this
                                // Kafka (measured: 20 s per restart after a day of drills, instead
                                // of 6.6 s), which is no fault of this run's.
                                "--job.instance-id",
                                run.id(),
                                "--checkpoint.dir",
                                cluster.sharedStorage() + "/checkpoints/" + JOB_NAME,
                                "--checkpoint.savepoint-dir",
                                cluster.sharedStorage() + "/savepoints/" + JOB_NAME));
        args.addAll(options);
        return args;
    }

    /**
     * Cancels a relay an interrupted drill left running: it would read and write the old topics
     * beside ours.
     */
    void cancelLeftovers() {
        try (FlinkRest rest = kfp.rest()) {
            for (JobStatusMessage job : rest.jobs()) {
                if (job.getJobName().equals(JOB_NAME)
                        && !job.getJobState().isGloballyTerminalState()) {
                    clock.say(
                            "drill: cancelling "
                                    + job.getJobId()
                                    + ", a "
                                    + JOB_NAME
                                    + " left by an earlier run");
                    rest.cancel(job.getJobId());
                }
            }
        }
    }

    JobID runningJob() {
        try (FlinkRest rest = kfp.rest()) {
            return rest.runningJob(JOB_NAME);
        }
    }

    /** Stops {@code job} with a savepoint in the savepoint directory; returns its path. */
    String stopWithSavepoint(JobID job) {
        try (FlinkRest rest = kfp.rest()) {
            return rest.stopWithSavepoint(job, null);
        }
    }

    /** How many jobs of the relay's name the cluster lists as FAILED. */
    long failedJobs() {
        try (FlinkRest rest = kfp.rest()) {
            return rest.jobs().stream()
                    .filter(j -> j.getJobName().equals(JOB_NAME))
                    .map(JobStatusMessage::getJobState)
                    .filter(s -> s == JobStatus.FAILED)
                    .count();
        }
    }
}
