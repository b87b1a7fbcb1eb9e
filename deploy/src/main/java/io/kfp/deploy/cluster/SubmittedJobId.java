package io.kfp.deploy.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;

/**
 * Tells kfp the id of the job that {@code flink run} just submitted, without reading it out of the
 * CLI's output: kfp registers this listener with {@code -Dexecution.job-listeners} and names a file
 * in the system property {@value #FILE_PROPERTY}; Flink calls it on submission.
 */
public final class SubmittedJobId implements JobListener {

    public static final String FILE_PROPERTY = "kfp.submitted-job-id-file";

    @Override
    public void onJobSubmitted(JobClient jobClient, Throwable error) {
        String file = System.getProperty(FILE_PROPERTY);
        if (jobClient == null || file == null) {
            return; // submission failed: the CLI reports why
        }
        try {
            Files.writeString(Path.of(file), jobClient.getJobID().toHexString() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the submitted job's id to " + file, e);
        }
    }

    @Override
    public void onJobExecuted(JobExecutionResult result, Throwable error) {}
}
