package io.kfp.deploy.cluster;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.rest.messages.ConversionException;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.rest.messages.JobIDPathParameter;
import org.apache.flink.runtime.rest.messages.JobMessageParameters;
import org.apache.flink.runtime.rest.messages.JobVertexIdPathParameter;
import org.apache.flink.runtime.rest.messages.MessageParameter;
import org.apache.flink.runtime.rest.messages.MessageParameters;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointConfigHeaders;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointConfigInfo;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatistics;
import org.apache.flink.runtime.rest.messages.checkpoints.CheckpointingStatisticsHeaders;
import org.apache.flink.runtime.rest.messages.job.JobDetailsInfo;
import org.apache.flink.runtime.rest.messages.job.metrics.AggregatedMetric;
import org.apache.flink.runtime.rest.messages.job.metrics.AggregatedSubtaskMetricsHeaders;
import org.apache.flink.runtime.rest.messages.job.metrics.JobMetricsHeaders;
import org.apache.flink.runtime.rest.messages.job.metrics.JobMetricsMessageParameters;
import org.apache.flink.runtime.rest.util.RestClientException;
import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.concurrent.FutureUtils;

/**
 * The cluster's REST API through Flink's own client, {@link RestClusterClient}: it finds the
 * leading JobManager from the cluster's configuration (the REST address, or the leader elected
 * through ZooKeeper when high availability is on) and speaks Flink's typed REST messages.
 */
public final class FlinkRest implements AutoCloseable {

    /** How long one call may take; stop-with-savepoint waits for the savepoint to complete. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    static final Duration SAVEPOINT_TIMEOUT = Duration.ofMinutes(10);

    private final RestClusterClient<StandaloneClusterId> client;
    private final String url;

    private FlinkRest(RestClusterClient<StandaloneClusterId> client, String url) {
        this.client = client;
        this.url = url;
    }

    /** A client for the cluster {@code clusterConfig} describes (its config.yaml). */
    public static FlinkRest connect(Configuration clusterConfig) {
        Configuration config = new Configuration(clusterConfig);
        // A cluster that is down is reported after about 5 s, not after Flink's 20 retries of 3 s;
        // a JobManager busy with a savepoint still gets five chances to answer each poll.
        config.set(RestOptions.RETRY_MAX_ATTEMPTS, 5);
        config.set(RestOptions.RETRY_DELAY, Duration.ofSeconds(1));
        String url =
                (SecurityOptions.isRestSSLEnabled(config) ? "https://" : "http://")
                        + config.get(RestOptions.ADDRESS)
                        + ":"
                        + config.get(RestOptions.PORT);
        try {
            return new FlinkRest(
                    new RestClusterClient<>(config, StandaloneClusterId.getInstance()), url);
        } catch (Exception e) {
            throw new KfpException(
                    "cannot create a REST client for the Flink cluster at "
                            + url
                            + ": "
                            + e.getMessage(),
                    KfpException.FAILED,
                    e);
        }
    }

    /** How many TaskManagers are registered; 0 while the JobManager does not answer yet. */
    public int taskManagers() {
        try {
            return client.getClusterOverview()
                    .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .getNumTaskManagersConnected();
        } catch (Exception e) {
            return 0;
        }
    }

    /** Every job the cluster knows, oldest first. */
    public List<JobStatusMessage> jobs() {
        Collection<JobStatusMessage> jobs = call(client.listJobs(), CALL_TIMEOUT, "list the jobs");
        return jobs.stream()
                .sorted(Comparator.comparingLong(JobStatusMessage::getStartTime))
                .toList();
    }

    /** The one job of that name that has not ended. */
    public JobID runningJob(String name) {
        return runningJob(jobs(), name);
    }

    public static JobID runningJob(List<JobStatusMessage> jobs, String name) {
        List<JobID> ids = notEnded(jobs, name).stream().map(JobStatusMessage::getJobId).toList();
        if (ids.isEmpty()) {
            throw new KfpException(
                    "no running job named " + name + " (kfp status lists the jobs).",
                    KfpException.FAILED);
        }
        if (ids.size() > 1) {
            throw new KfpException(
                    ids.size()
                            + " running jobs are named "
                            + name
                            + ": "
                            + ids
                            + ". Cancel the extra ones by id (flink cancel ID), or give each its own job.name.",
                    KfpException.FAILED);
        }
        return ids.get(0);
    }

    /**
     * Refuses a second copy of a running job: both would read every input partition, write every
     * record twice and fence each other's transactions (same name, same transactional id prefix).
     */
    public static void refuseSecondCopy(List<JobStatusMessage> jobs, String name, String job) {
        List<JobStatusMessage> running = notEnded(jobs, name);
        if (!running.isEmpty()) {
            JobStatusMessage first = running.get(0);
            throw new KfpException(
                    name
                            + " is already running on the cluster (job "
                            + first.getJobId()
                            + ", "
                            + first.getJobState()
                            + "). A second copy would read every record again, write it twice and fence"
                            + " the first one's transactions. Stop it first (kfp stop "
                            + job
                            + ", then kfp resume "
                            + job
                            + "), or give this one its own --job.name.");
        }
    }

    /** The jobs of that name that have not ended (running, restarting, being created, ...). */
    public static List<JobStatusMessage> notEnded(List<JobStatusMessage> jobs, String name) {
        return jobs.stream()
                .filter(
                        j ->
                                j.getJobName().equals(name)
                                        && !j.getJobState().isGloballyTerminalState())
                .toList();
    }

    /**
     * Stops the job with a savepoint in {@code directory} (null: the cluster's default); returns
     * its path.
     */
    public String stopWithSavepoint(JobID job, String directory) {
        return stopWithSavepoint(job, directory, false);
    }

    /**
     * Stops the job with a savepoint; with {@code drain}, its sources end first and event time
     * advances to the end, firing every timer and window (for a job that will not be resumed on
     * this state's windows).
     */
    public String stopWithSavepoint(JobID job, String directory, boolean drain) {
        String savepoint =
                call(
                        client.stopWithSavepoint(
                                job, drain, directory, SavepointFormatType.CANONICAL),
                        SAVEPOINT_TIMEOUT,
                        "stop job " + job + " with a savepoint");
        awaitEnded(job);
        return savepoint;
    }

    /**
     * The savepoint is written before the job has ended: wait for that, so a resume right after
     * finds it gone.
     */
    private void awaitEnded(JobID job) {
        long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (!call(client.getJobStatus(job), CALL_TIMEOUT, "ask for the state of job " + job)
                .isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new KfpException(
                        "job "
                                + job
                                + " has not ended "
                                + CALL_TIMEOUT.toSeconds()
                                + " s after its savepoint; see the JobManager's log (kfp logs jobmanager).",
                        KfpException.FAILED);
            }
            Processes.sleep(Duration.ofMillis(200));
        }
    }

    /**
     * The path of the job's latest completed checkpoint or savepoint, if it has one that was
     * persisted.
     */
    public java.util.Optional<String> latestCheckpoint(JobID job) {
        var latest = checkpointStatistics(job).getLatestCheckpoints();
        return java.util.stream.Stream.of(
                        latest.getCompletedCheckpointStatistics(), latest.getSavepointStatistics())
                .filter(java.util.Objects::nonNull)
                .max(java.util.Comparator.comparingLong(c -> c.getLatestAckTimestamp()))
                .map(c -> c.getExternalPath())
                .filter(path -> path != null && !path.startsWith("<"));
    }

    /**
     * The job's checkpoint counts (completed, failed, restored) as its JobMaster keeps them: read
     * directly, not through the metric store the REST server refreshes from the reporters, which
     * can lag behind or miss a job that has just started.
     */
    public CheckpointingStatistics.Counts checkpointCounts(JobID job) {
        return checkpointStatistics(job).getCounts();
    }

    /**
     * The job's checkpoint interval as its JobMaster runs it (whatever option set it). Flink's
     * answer type has no getters; it is read from its JSON form, field {@code interval}.
     */
    public Duration checkpointInterval(JobID job) {
        JobMessageParameters params =
                resolve(
                        CheckpointConfigHeaders.getInstance().getUnresolvedMessageParameters(),
                        Map.of(JobIDPathParameter.KEY, job.toString()));
        CheckpointConfigInfo info =
                call(
                        client.sendRequest(
                                CheckpointConfigHeaders.getInstance(),
                                params,
                                EmptyRequestBody.getInstance()),
                        CALL_TIMEOUT,
                        "read the checkpoint configuration of job " + job);
        return Duration.ofMillis(
                RestMapperUtils.getStrictObjectMapper()
                        .valueToTree(info)
                        .path(CheckpointConfigInfo.FIELD_NAME_CHECKPOINT_INTERVAL)
                        .asLong());
    }

    private CheckpointingStatistics checkpointStatistics(JobID job) {
        JobMessageParameters params =
                resolve(
                        CheckpointingStatisticsHeaders.getInstance()
                                .getUnresolvedMessageParameters(),
                        Map.of(JobIDPathParameter.KEY, job.toString()));
        return call(
                client.sendRequest(
                        CheckpointingStatisticsHeaders.getInstance(),
                        params,
                        EmptyRequestBody.getInstance()),
                CALL_TIMEOUT,
                "read the checkpoints of job " + job);
    }

    /** The job's state on the cluster. */
    public org.apache.flink.api.common.JobStatus status(JobID job) {
        return call(client.getJobStatus(job), CALL_TIMEOUT, "ask for the state of job " + job);
    }

    public void cancel(JobID job) {
        call(client.cancel(job), CALL_TIMEOUT, "cancel job " + job);
    }

    /** Cancels the job and waits until it has ended. */
    public void cancelAndAwait(JobID job) {
        cancel(job);
        awaitEnded(job);
    }

    /**
     * The REST address of the leading JobManager (with high availability: the one ZooKeeper
     * elected).
     */
    public String leader() {
        try {
            return client.getWebInterfaceURL();
        } catch (RuntimeException e) {
            return "(none elected yet: " + e.getMessage() + ")";
        }
    }

    /** What the JobManager knows of a job: state, start, vertices. */
    public JobDetailsInfo details(JobID job) {
        return call(client.getJobDetails(job), CALL_TIMEOUT, "describe job " + job);
    }

    /**
     * The job-level metrics of that name (numRestarts, lastCheckpointDuration, ...) the job has, by
     * name.
     */
    public Map<String, String> jobMetrics(JobID job, List<String> names) {
        JobMetricsMessageParameters params =
                resolve(
                        JobMetricsHeaders.getInstance().getUnresolvedMessageParameters(),
                        Map.of(
                                JobIDPathParameter.KEY,
                                job.toString(),
                                "get",
                                String.join(",", names)));
        Map<String, String> values = new LinkedHashMap<>();
        call(
                        client.sendRequest(
                                JobMetricsHeaders.getInstance(),
                                params,
                                EmptyRequestBody.getInstance()),
                        CALL_TIMEOUT,
                        "read the metrics of job " + job)
                .getMetrics()
                .forEach(m -> values.put(m.getId(), m.getValue()));
        return values;
    }

    /**
     * Each metric of the job's tasks whose id {@code which} accepts (operator metrics are named
     * {@code OPERATOR.METRIC}), summed over the subtasks of its vertex and then over the vertices.
     */
    public Map<String, Double> taskMetricSums(
            JobID job,
            Collection<JobDetailsInfo.JobVertexDetailsInfo> vertices,
            Predicate<String> which) {
        Map<String, Double> sums = new TreeMap<>();
        for (JobDetailsInfo.JobVertexDetailsInfo vertex : vertices) {
            Map<String, String> path =
                    Map.of(
                            JobIDPathParameter.KEY,
                            job.toString(),
                            JobVertexIdPathParameter.KEY,
                            vertex.getJobVertexID().toString());
            AggregatedSubtaskMetricsHeaders headers = AggregatedSubtaskMetricsHeaders.getInstance();
            List<String> ids =
                    call(
                                    client.sendRequest(
                                            headers,
                                            resolve(headers.getUnresolvedMessageParameters(), path),
                                            EmptyRequestBody.getInstance()),
                                    CALL_TIMEOUT,
                                    "list the metrics of job " + job)
                            .getMetrics()
                            .stream()
                            .map(AggregatedMetric::getId)
                            .filter(which)
                            .toList();
            if (ids.isEmpty()) {
                continue;
            }
            Map<String, String> query = new HashMap<>(path);
            query.put("get", String.join(",", ids));
            query.put("agg", "sum");
            for (AggregatedMetric m :
                    call(
                                    client.sendRequest(
                                            headers,
                                            resolve(
                                                    headers.getUnresolvedMessageParameters(),
                                                    query),
                                            EmptyRequestBody.getInstance()),
                                    CALL_TIMEOUT,
                                    "read the metrics of job " + job)
                            .getMetrics()) {
                if (m.getSum() != null) {
                    sums.merge(m.getId(), m.getSum(), Double::sum);
                }
            }
        }
        return sums;
    }

    /** Fills in Flink's typed REST parameters by their keys (jobid, vertexid, get, agg). */
    private static <P extends MessageParameters> P resolve(P params, Map<String, String> values) {
        List<MessageParameter<?>> all = new ArrayList<>(params.getPathParameters());
        all.addAll(params.getQueryParameters());
        for (MessageParameter<?> parameter : all) {
            String value = values.get(parameter.getKey());
            if (value != null) {
                try {
                    parameter.resolveFromString(value);
                } catch (ConversionException e) {
                    throw new IllegalArgumentException(
                            "REST parameter "
                                    + parameter.getKey()
                                    + "="
                                    + value
                                    + ": "
                                    + e.getMessage(),
                            e);
                }
            }
        }
        return params;
    }

    private <T> T call(CompletableFuture<T> future, Duration timeout, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = ExceptionUtils.stripExecutionException(e);
            throw new KfpException(
                    "could not "
                            + what
                            + " on the Flink cluster at "
                            + url
                            + ": "
                            + firstLine(cause)
                            + (isConnectionProblem(cause)
                                    ? " - is it running? ('kfp cluster status')"
                                    : ""),
                    KfpException.FAILED,
                    cause);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new KfpException(
                    "could not "
                            + what
                            + " on the Flink cluster at "
                            + url
                            + " within "
                            + timeout.toSeconds()
                            + " s; see its log (kfp logs jobmanager).",
                    KfpException.FAILED,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted while trying to " + what, KfpException.FAILED, e);
        }
    }

    private static boolean isConnectionProblem(Throwable t) {
        return ExceptionUtils.findThrowable(t, ConnectException.class).isPresent()
                || ExceptionUtils.findThrowable(t, FutureUtils.RetryException.class).isPresent();
    }

    /**
     * The first line of what went wrong (a REST error's own message when there is one): for
     * one-line reports.
     */
    public static String firstLine(Throwable t) {
        Throwable root =
                ExceptionUtils.findThrowable(t, RestClientException.class)
                        .map(Throwable.class::cast)
                        .orElse(t);
        String message = root.getMessage() == null ? root.toString() : root.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    @Override
    public void close() {
        client.close();
    }
}
