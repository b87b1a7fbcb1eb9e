package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.ops.jobs.JobOwnership;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two jobs that would share a group, a prefix or a topic are named, with the setting to change. */
class JobOwnershipTest {

    static final Path SHIPPED = DeployedJobTest.SHIPPED;

    static JobOwnership.Declared declared(String job, String... options) {
        DeployedJob deployed = TestJobs.of(job);
        return new JobOwnership.Declared(
                job,
                deployed.spec()
                        .endpoints(
                                deployed.settings(
                                        SHIPPED.resolve(job + ".yaml"),
                                        Map.of(),
                                        List.of(options))));
    }

    @Test
    void aSecondWriterOfATopicIsRefusedUnlessBothSaySo() {
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("ingest"),
                                        declared("relay", "--sink.topic", "lines"))))
                .containsExactly(
                        "ingest and relay both write topic lines (sink.topic): their records would"
                                + " interleave. If that is meant, set sink.shared-topic: true in both"
                                + " jobs' configs; otherwise give one another topic.");
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("ingest", "--sink.shared-topic", "true"),
                                        declared("relay", "--sink.topic", "lines"))))
                .as("one side alone cannot declare it")
                .hasSize(1);
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("ingest", "--sink.shared-topic", "true"),
                                        declared(
                                                "relay",
                                                "--sink.topic",
                                                "lines",
                                                "--sink.shared-topic",
                                                "true"))))
                .isEmpty();
    }

    @Test
    void aSharedConsumerGroupIsRefused() {
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("relay"),
                                        declared(
                                                "sink",
                                                "--source.group-id",
                                                "kfp.relay-job.default"))))
                .singleElement()
                .asString()
                .startsWith(
                        "relay and sink read in one consumer group, kfp.relay-job.default (source.group-id)")
                .endsWith("Give one its own source.group-id (or job.name).");
    }

    static JobOwnership.Declared exactlyOnceIngest(String prefix) {
        return declared(
                "ingest",
                "--sink.delivery-guarantee",
                "exactly-once",
                "--sink.transactional-id-prefix",
                prefix);
    }

    @Test
    void aTransactionalIdPrefixThatStartsAnotherIsRefused() {
        // ingest writing exactly-once under the prefix kfp.relay-job.default-2: its ids
        // kfp.relay-job.default-2-0-7 are also ids of the relay's prefix kfp.relay-job.default.
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("relay"),
                                        exactlyOnceIngest("kfp.relay-job.default-2"))))
                .singleElement()
                .asString()
                .contains(
                        "relay and ingest write with transactional ids kfp.relay-job.default and"
                                + " kfp.relay-job.default-2, one the start of the other"
                                + " (sink.transactional-id-prefix)",
                        "sink.transaction-naming pooling");
        // kfp.relay-job.defaults-0-7 is no id a relay with incrementing names would make, but a
        // relay with pooling names aborts it: its id starts with kfp.relay-job.default
        // (LostTransactionTest.aPoolingSinkAbortsTheOpenTransactionsOfALongerPrefix).
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("relay"),
                                        exactlyOnceIngest("kfp.relay-job.defaults"))))
                .hasSize(1);
        assertThat(
                        JobOwnership.conflicts(
                                List.of(
                                        declared("relay"),
                                        exactlyOnceIngest("kfp.relay-jobs.default"))))
                .isEmpty();
    }
}
