package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.ops.offsets.ConsumerLag;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * What kfp status prints for a job, from what it gathered; DeployEndToEndTest gathers it from a
 * real cluster.
 */
class JobStatusReportTest {

    static final long NOW = 1_796_184_000_000L;
    static final JobID ID = JobID.fromHexString("dafdd4363d5fa9f49c667f7e5be81715");

    @Test
    void aRunningRelayWithItsCheckpointRatesLagAndAnOpenTransaction() {
        JobStatusReport.OnCluster running =
                new JobStatusReport.OnCluster(
                        ID,
                        JobStatus.RUNNING,
                        NOW - 318_000,
                        -1,
                        1,
                        62,
                        NOW - 6_000,
                        26,
                        1832,
                        62,
                        1,
                        1581.4,
                        1580.6,
                        500_000,
                        499_000,
                        NOW);
        List<ConsumerLag.Partition> lag =
                List.of(
                        new ConsumerLag.Partition(
                                new TopicPartition("lines", 0), 250_379, 250_380, 250_380, 0, true),
                        new ConsumerLag.Partition(
                                new TopicPartition("lines", 1),
                                240_000,
                                300_000,
                                300_219,
                                59_990,
                                false),
                        new ConsumerLag.Partition(
                                new TopicPartition("lines", 2),
                                -1,
                                12,
                                12,
                                ConsumerLag.UNKNOWN,
                                true));
        KafkaTransactions.Transaction open =
                new KafkaTransactions.Transaction(
                        "kfp.relay-job.default-0-69",
                        TransactionState.ONGOING,
                        7,
                        3,
                        1,
                        NOW - 4_000,
                        Set.of(new TopicPartition("relayed", 0)));
        String printed =
                print(
                        new JobStatusReport.View(
                                NOW,
                                "relay",
                                "relay-job",
                                true,
                                running,
                                "kfp.relay-job.default",
                                lag,
                                "kfp.relay-job.default-",
                                List.of(open),
                                null),
                        null);

        assertThat(printed)
                .isEqualTo(
                        String.join(
                                System.lineSeparator(),
                                "relay-job: RUNNING for 5 min 18 s, 1 restart (job dafdd4363d5fa9f49c667f7e5be81715)",
                                "  checkpoint  #62 completed 6 s ago in 26 ms, 1832 B; 62 completed, 1 failed",
                                "  records     1,581/s in, 1,581/s out (1 min averages)",
                                "  lag         ~59990 records behind what read_committed readers see, group kfp.relay-job.default;"
                                        + " no offset committed yet on 1 partition",
                                "    PARTITION     COMMITTED   LAST STABLE         LAG  HELD BACK BY AN OPEN TRANSACTION",
                                "    lines-0          250379        250380           0  -",
                                "    lines-1          240000        300000      ~59990  219 offsets",
                                "    lines-2            none            12           -  -",
                                "  transactions  1 open of kfp.relay-job.default-*:",
                                "    kfp.relay-job.default-0-69  Ongoing  4 s  holds back relayed-0",
                                ""));
    }

    @Test
    void watchRatesComeFromTheCountersSinceAnEarlierScreen() {
        JobStatusReport.OnCluster before =
                new JobStatusReport.OnCluster(
                        ID,
                        JobStatus.RUNNING,
                        NOW - 60_000,
                        -1,
                        0,
                        1,
                        NOW,
                        20,
                        100,
                        1,
                        0,
                        10,
                        10,
                        1_000,
                        900,
                        NOW);
        JobStatusReport.OnCluster after =
                new JobStatusReport.OnCluster(
                        ID,
                        JobStatus.RUNNING,
                        NOW - 60_000,
                        -1,
                        0,
                        1,
                        NOW,
                        20,
                        100,
                        1,
                        0,
                        10,
                        10,
                        51_000,
                        40_900,
                        NOW + 10_000);
        String printed =
                print(
                        new JobStatusReport.View(
                                NOW + 10_000,
                                "sink",
                                "sink-job",
                                true,
                                after,
                                null,
                                null,
                                null,
                                null,
                                null),
                        new JobStatusReport.View(
                                NOW,
                                "sink",
                                "sink-job",
                                true,
                                before,
                                null,
                                null,
                                null,
                                null,
                                null));
        assertThat(printed).contains("  records     5,000/s in, 4,000/s out (last 10 s)");

        // After a restart the counters begin again at 0: the meters, not a negative rate.
        JobStatusReport.OnCluster restarted =
                new JobStatusReport.OnCluster(
                        ID,
                        JobStatus.RUNNING,
                        NOW - 60_000,
                        -1,
                        1,
                        1,
                        NOW,
                        20,
                        100,
                        1,
                        0,
                        10,
                        10,
                        500,
                        400,
                        NOW + 10_000);
        assertThat(
                        print(
                                new JobStatusReport.View(
                                        NOW + 10_000,
                                        "sink",
                                        "sink-job",
                                        true,
                                        restarted,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null),
                                new JobStatusReport.View(
                                        NOW,
                                        "sink",
                                        "sink-job",
                                        true,
                                        before,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null)))
                .contains("  records     10/s in, 10/s out (1 min averages)");
    }

    @Test
    void aStoppedJobAndAClusterThatDoesNotAnswerSaySo() {
        JobStatusReport.OnCluster finished =
                new JobStatusReport.OnCluster(
                        ID,
                        JobStatus.FINISHED,
                        NOW - 600_000,
                        NOW - 150_000,
                        -1,
                        -1,
                        -1,
                        -1,
                        -1,
                        -1,
                        -1,
                        Double.NaN,
                        Double.NaN,
                        -1,
                        -1,
                        NOW);
        assertThat(
                        print(
                                new JobStatusReport.View(
                                        NOW,
                                        "relay",
                                        "relay-job",
                                        true,
                                        finished,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null),
                                null))
                .isEqualTo(
                        "relay-job: not running - FINISHED 2 min 30 s ago (job dafdd4363d5fa9f49c667f7e5be81715)"
                                + System.lineSeparator());
        assertThat(
                        print(
                                new JobStatusReport.View(
                                        NOW,
                                        "sink",
                                        "sink-job",
                                        true,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null),
                                null))
                .startsWith("sink-job: not on the cluster (kfp submit sink)");
        assertThat(
                        print(
                                new JobStatusReport.View(
                                        NOW,
                                        "sink",
                                        "sink-job",
                                        false,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null),
                                null))
                .startsWith("sink-job: state unknown - no JobManager answers (kfp cluster status)");
        assertThat(
                        print(
                                new JobStatusReport.View(
                                        NOW,
                                        "sink",
                                        "sink-job",
                                        true,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        "Kafka did not answer within 60 s when asked to describe the cluster at 127.0.0.1:9092 (kfp kafka status)"),
                                null))
                .endsWith(
                        System.lineSeparator()
                                + "  problem     Kafka did not answer within 60 s when asked to describe the cluster at"
                                + " 127.0.0.1:9092 (kfp kafka status)"
                                + System.lineSeparator());
    }

    private static String print(JobStatusReport.View view, JobStatusReport.View previous) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JobStatusPrinter.print(view, previous, new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void onlyAnExactlyOnceSinkHasTransactionsToWatch() {
        DeployedJob relay = TestJobs.of("relay");
        DeployedJob ingest = TestJobs.of("ingest");
        Map<String, String> env = Map.of();
        assertThat(
                        JobStatusReport.transactionalIds(
                                relay, relay.settings(relay.defaultConfig(settings()), env)))
                .isEqualTo("kfp.relay-job.default-");
        assertThat(
                        JobStatusReport.transactionalIds(
                                ingest, ingest.settings(ingest.defaultConfig(settings()), env)))
                .as("ingest writes at least once: no transactions")
                .isNull();
    }

    private static KfpSettings settings() {
        return KfpSettings.from(Map.of(), TestJobs.HOME, TestJobs.HOME);
    }
}
