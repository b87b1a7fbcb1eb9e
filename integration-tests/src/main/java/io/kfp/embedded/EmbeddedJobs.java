package io.kfp.embedded;

import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.preflight.AdminBrokerView;
import io.kfp.ingest.IngestJob;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import java.io.PrintStream;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;

/**
 * Submits the jobs to the embedded cluster through their own entry point (the same option
 * loading, validation and broker preflight as their {@code main}), without waiting for them to
 * finish, so the caller can watch, fail and cancel them.
 */
public final class EmbeddedJobs {

    /** Builds and submits a job from its validated configuration. */
    @FunctionalInterface
    public interface Submitter {
        JobClient submit(Configuration config) throws Exception;
    }

    /** How each job is submitted when nothing is swapped. */
    public static final Map<String, Submitter> STANDARD =
            Map.of(
                    IngestJob.SPEC.command(), c -> IngestJob.fromConfig(c).executeAsync(),
                    RelayJob.SPEC.command(), c -> RelayJob.fromConfig(c).executeAsync(),
                    SinkJob.SPEC.command(), c -> SinkJob.fromConfig(c).executeAsync());

    private EmbeddedJobs() {}

    /** What submitting a job gave: the entry point's exit code and, if submitted, the client. */
    public record Submitted(int exitCode, JobClient client) {}

    /**
     * Runs {@code spec}'s entry point with {@code args}; instead of its blocking runner, {@code
     * submitter} submits the job and returns at once.
     */
    public static Submitted submit(
            JobSpec spec, Submitter submitter, String[] args, PrintStream out, PrintStream err) {
        JobClient[] client = new JobClient[1];
        JobSpec async =
                new JobSpec(
                        spec.command(),
                        spec.description(),
                        spec.groups(),
                        spec.defaults(),
                        spec.preflights(),
                        spec.extraOutputTopics(),
                        config -> client[0] = submitter.submit(config));
        int exit = new JobEntryPoint(System.getenv(), out, err, AdminBrokerView::new).run(async, args);
        return new Submitted(exit, client[0]);
    }

    /** {@link #submit} with the job's standard submitter. */
    public static Submitted submit(JobSpec spec, String[] args, PrintStream out, PrintStream err) {
        return submit(spec, STANDARD.get(spec.command()), args, out, err);
    }
}
