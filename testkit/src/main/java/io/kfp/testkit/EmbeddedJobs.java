package io.kfp.testkit;

import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.entry.Workflow;
import io.kfp.common.preflight.AdminBrokerView;
import java.io.PrintStream;
import java.util.function.Function;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;

/**
 * Submits the jobs to the embedded cluster through their own entry point (the same option loading,
 * validation and broker preflight as their {@code main}), without waiting for them to finish, so
 * the caller can watch, fail and cancel them.
 */
public final class EmbeddedJobs {

    private EmbeddedJobs() {}

    /** What submitting a job gave: the entry point's exit code and, if submitted, the client. */
    public record Submitted(int exitCode, JobClient client) {}

    /**
     * Runs {@code spec}'s entry point with {@code args} and submits its workflow without waiting.
     */
    public static Submitted submit(JobSpec spec, String[] args, PrintStream out, PrintStream err) {
        return submit(spec, spec::workflow, args, out, err);
    }

    /**
     * Like {@link #submit(JobSpec, String[], PrintStream, PrintStream)}, but submitting the graph
     * {@code workflow} builds from the validated configuration: the job's own with a test's sink or
     * failure stage.
     */
    public static Submitted submit(
            JobSpec spec,
            Function<Configuration, ? extends Workflow> workflow,
            String[] args,
            PrintStream out,
            PrintStream err) {
        JobClient[] client = new JobClient[1];
        JobEntryPoint.Launcher detached =
                (s, config) ->
                        client[0] = StreamEnvironments.executeAsync(config, workflow.apply(config));
        int exit =
                new JobEntryPoint(System.getenv(), out, err, AdminBrokerView::new)
                        .run(spec, args, detached);
        return new Submitted(exit, client[0]);
    }
}
