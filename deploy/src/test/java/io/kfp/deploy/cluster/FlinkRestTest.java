package io.kfp.deploy.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.junit.jupiter.api.Test;

class FlinkRestTest {

    static final JobID OLD = JobID.generate();
    static final JobID NOW = JobID.generate();

    @Test
    void theRunningJobOfANameIsFoundAmongEndedOnes() {
        List<JobStatusMessage> jobs =
                List.of(
                        new JobStatusMessage(OLD, "relay-job", JobStatus.CANCELED, 1),
                        new JobStatusMessage(NOW, "relay-job", JobStatus.RESTARTING, 2),
                        new JobStatusMessage(JobID.generate(), "sink-job", JobStatus.RUNNING, 3));
        assertThat(FlinkRest.runningJob(jobs, "relay-job")).isEqualTo(NOW);
    }

    @Test
    void noneOrSeveralIsAnErrorThatSaysWhatToDo() {
        assertThatThrownBy(
                        () ->
                                FlinkRest.runningJob(
                                        List.of(
                                                new JobStatusMessage(
                                                        OLD, "relay-job", JobStatus.FINISHED, 1)),
                                        "relay-job"))
                .hasMessage("no running job named relay-job (kfp status lists the jobs).");
        assertThatThrownBy(
                        () ->
                                FlinkRest.runningJob(
                                        List.of(
                                                new JobStatusMessage(
                                                        OLD, "relay-job", JobStatus.RUNNING, 1),
                                                new JobStatusMessage(
                                                        NOW, "relay-job", JobStatus.CREATED, 2)),
                                        "relay-job"))
                .hasMessage(
                        "2 running jobs are named relay-job: ["
                                + OLD
                                + ", "
                                + NOW
                                + "]. Cancel the extra ones by id"
                                + " (flink cancel ID), or give each its own job.name.");
    }

    @Test
    void aSecondCopyOfARunningJobIsRefusedNamingTheRunningOne() {
        assertThatThrownBy(
                        () ->
                                FlinkRest.refuseSecondCopy(
                                        List.of(
                                                new JobStatusMessage(
                                                        OLD, "relay-job", JobStatus.CANCELED, 1),
                                                new JobStatusMessage(
                                                        NOW, "relay-job", JobStatus.RESTARTING, 2)),
                                        "relay-job",
                                        "relay"))
                .isInstanceOf(KfpException.class)
                .hasMessageStartingWith(
                        "relay-job is already running on the cluster (job "
                                + NOW
                                + ", RESTARTING).")
                .hasMessageContaining("kfp stop relay", "--job.name");
        // Ended jobs of that name and running jobs of other names are no reason to refuse.
        FlinkRest.refuseSecondCopy(
                List.of(
                        new JobStatusMessage(OLD, "relay-job", JobStatus.FINISHED, 1),
                        new JobStatusMessage(NOW, "sink-job", JobStatus.RUNNING, 2)),
                "relay-job",
                "relay");
    }

    @Test
    void aClusterThatIsDownIsReportedInSecondsWithWhatToCheck() throws Exception {
        Configuration config = new Configuration();
        config.set(RestOptions.ADDRESS, "127.0.0.1");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        config.set(RestOptions.PORT, port);
        try (FlinkRest rest = FlinkRest.connect(config)) {
            assertThat(rest.taskManagers()).isZero();
            assertThatThrownBy(rest::jobs)
                    .isInstanceOf(KfpException.class)
                    .hasMessageStartingWith(
                            "could not list the jobs on the Flink cluster at http://127.0.0.1:"
                                    + port
                                    + ": ")
                    .hasMessageEndingWith(" - is it running? ('kfp cluster status')");
        }
    }
}
