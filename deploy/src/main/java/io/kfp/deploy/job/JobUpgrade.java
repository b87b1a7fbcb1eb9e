package io.kfp.deploy.job;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.cluster.FlinkRest;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;

/**
 * {@code kfp upgrade}: a job's built jar in place of the version running, without losing or
 * repeating a record - and the version running back when the new one does not hold.
 *
 * <ol>
 *   <li>Before anything is stopped, the new jar is asked whether the running job's latest completed
 *       checkpoint restores into it (each operator state has an operator of its uid); if state
 *       would be dropped it is named and nothing happens, unless the user allows it.
 *   <li>The job stops with a savepoint (drained, if asked).
 *   <li>The new version is submitted from that savepoint.
 *   <li>It is stable after {@code stableCheckpoints} completed checkpoints without a restart. If it
 *       does not start, restarts, ends, or is not stable within {@code within}, it is cancelled and
 *       the previous version resumes from the same savepoint; kfp says so and exits 1.
 * </ol>
 */
public final class JobUpgrade {

    /**
     * What the upgrade may do: stable after this many checkpoints (3: the first after a restore
     * proves the sinks' transactions commit again, two more that it keeps doing so) within this
     * long (3 min: a start, three checkpoints at the default 5 s interval and slack for a busy
     * cluster); the new version from {@code jar}, or from the built jar when null.
     */
    public record Options(
            int stableCheckpoints,
            Duration within,
            boolean drain,
            boolean allowNonRestoredState,
            Path jar) {}

    private final KfpSettings settings;
    private final JobSubmitter submitter;
    private final Supplier<FlinkRest> rest;
    private final PrintStream out;

    public JobUpgrade(
            KfpSettings settings,
            JobSubmitter submitter,
            Supplier<FlinkRest> rest,
            PrintStream out) {
        this.settings = settings;
        this.submitter = submitter;
        this.rest = rest;
        this.out = out;
    }

    /** Upgrades the running {@code job}, named {@code flinkName} on the cluster. */
    public void upgrade(DeployedJob job, String flinkName, List<String> userArgs, Options options) {
        JobJars jars = new JobJars(settings);
        JobJars.Running previous =
                jars.running(job)
                        .orElseThrow(
                                () ->
                                        new KfpException(
                                                "kfp keeps no jar of the version of "
                                                        + job.name()
                                                        + " running, so it could not roll back: stop"
                                                        + " it (kfp stop "
                                                        + job.name()
                                                        + ") and resume it with kfp resume, which"
                                                        + " keeps it; then upgrade."));
        JobJars.Version next = jars.keep(job, options.jar());
        JobID running;
        try (FlinkRest cluster = rest.get()) {
            running = cluster.runningJob(flinkName);
        }
        out.println(
                "upgrading "
                        + job.name()
                        + " from "
                        + previous.version().name()
                        + " to "
                        + next.name());
        out.println("checking its latest checkpoint against the new version:");
        boolean restores = false;
        // A checkpoint may be subsumed (deleted) while the check starts: then the next one.
        for (int attempt = 1; ; attempt++) {
            String checkpoint;
            try (FlinkRest cluster = rest.get()) {
                checkpoint =
                        cluster.latestCheckpoint(running)
                                .orElseThrow(
                                        () ->
                                                new KfpException(
                                                        job.name()
                                                                + " has completed no checkpoint yet"
                                                                + " to check the new version"
                                                                + " against: wait for one (kfp"
                                                                + " status "
                                                                + job.name()
                                                                + ") and upgrade again. Nothing was"
                                                                + " stopped."));
            }
            try {
                restores = submitter.restores(job, userArgs, next, checkpoint);
                break;
            } catch (KfpException e) {
                if (attempt == 3 || !e.getMessage().contains("could not check")) {
                    throw e;
                }
            }
        }
        if (!restores) {
            if (!options.allowNonRestoredState()) {
                throw new KfpException(
                        "the new version of "
                                + job.name()
                                + " cannot take the running version's state (above); nothing was"
                                + " stopped. --allow-non-restored-state upgrades anyway, dropping"
                                + " that state.",
                        KfpException.FAILED);
            }
            out.println("--allow-non-restored-state: that state will be dropped.");
        }

        String savepoint;
        try (FlinkRest cluster = rest.get()) {
            out.println(
                    "stopping "
                            + job.name()
                            + (options.drain()
                                    ? " with a drained savepoint"
                                    : " with a savepoint"));
            savepoint =
                    cluster.stopWithSavepoint(
                            running, submitter.savepointDirectory(job, userArgs), options.drain());
        }
        jars.recordSavepoint(job, savepoint, "upgrade");
        out.println("savepoint: " + savepoint);

        List<String> from = new ArrayList<>(List.of("--checkpoint.restore-from", savepoint));
        List<String> nextArgs = new ArrayList<>(from);
        if (options.allowNonRestoredState()) {
            nextArgs.addAll(
                    List.of("--" + CheckpointOptions.ALLOW_NON_RESTORED_STATE.key(), "true"));
        }
        nextArgs.addAll(userArgs);
        String failure;
        try {
            String id = submitter.submit(job, nextArgs, next);
            failure = awaitStable(JobID.fromHexString(id), options);
        } catch (KfpException e) {
            failure = "it was not submitted (" + e.getMessage().replaceAll("[.;].*$", "") + ")";
        }
        if (failure == null) {
            out.println(
                    job.name()
                            + " runs "
                            + next.name()
                            + ": "
                            + options.stableCheckpoints()
                            + " checkpoints completed without a restart.");
            return;
        }
        out.println(
                "ROLLING BACK: " + job.name() + " " + next.name() + " is not stable: " + failure);
        List<String> backArgs = new ArrayList<>(from);
        backArgs.addAll(previous.args());
        String back = submitter.submit(job, backArgs, previous.version());
        throw new KfpException(
                "upgrade of "
                        + job.name()
                        + " rolled back: "
                        + next.name()
                        + " was not stable: "
                        + failure
                        + ". "
                        + previous.version().name()
                        + " runs again (job "
                        + back
                        + ") from "
                        + savepoint
                        + ". What failed: the output above, kfp logs jobmanager, kfp logs"
                        + " taskmanager.",
                KfpException.FAILED);
    }

    /** Null once the job is stable; else what went wrong, after cancelling it. */
    private String awaitStable(JobID job, Options options) {
        long deadline = System.nanoTime() + options.within().toNanos();
        try (FlinkRest cluster = rest.get()) {
            while (true) {
                JobDetailsInfo details = cluster.details(job);
                JobStatus status = details.getJobStatus();
                if (status.isGloballyTerminalState()) {
                    return "it ended " + status;
                }
                // Both from the JobMaster itself, not from the REST server's metric store, which
                // can hold nothing of a new job for minutes.
                if (details.getTimestamps().getOrDefault(JobStatus.RESTARTING, 0L) > 0) {
                    cluster.cancelAndAwait(job);
                    return "it restarted";
                }
                if (status == JobStatus.RUNNING
                        && cluster.checkpointCounts(job).getNumberCompletedCheckpoints()
                                >= options.stableCheckpoints()) {
                    return null;
                }
                if (System.nanoTime() > deadline) {
                    cluster.cancelAndAwait(job);
                    return "it did not complete "
                            + options.stableCheckpoints()
                            + " checkpoints within "
                            + options.within().toSeconds()
                            + " s ("
                            + status
                            + ")";
                }
                Processes.sleep(Duration.ofMillis(500));
            }
        }
    }
}
