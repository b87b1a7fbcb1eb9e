package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kfp reads a job's config with the job's own loader: nested YAML, Flink's keys and KFP_* mean the
 * same.
 */
class DeployedJobTest {

    static final Path SHIPPED = Path.of("conf", "jobs").toAbsolutePath();

    @TempDir Path dir;

    @Test
    void theShippedConfigsNameTheirTopicsAndJobs() {
        assertThat(TestJobs.of("ingest").topics(SHIPPED.resolve("ingest.yaml"), Map.of()))
                .containsExactly("lines");
        assertThat(TestJobs.of("relay").topics(SHIPPED.resolve("relay.yaml"), Map.of()))
                .containsExactly("lines", "relayed");
        assertThat(TestJobs.of("sink").topics(SHIPPED.resolve("sink.yaml"), Map.of()))
                .containsExactly("relayed");
        assertThat(TestJobs.of("relay").jobName(SHIPPED.resolve("relay.yaml"), Map.of()))
                .isEqualTo("relay-job");
    }

    @Test
    void nestedKeysListsAndTheEnvironmentAreRead() throws Exception {
        Path config = dir.resolve("relay.yaml");
        Files.writeString(
                config, "source:\n  topics: [orders, refunds]\nsink:\n  topic: all-payments\n");
        DeployedJob relay = TestJobs.of("relay");
        assertThat(relay.topics(config, Map.of()))
                .containsExactly("orders", "refunds", "all-payments");
        assertThat(relay.jobName(config, Map.of()))
                .as("the job's own default")
                .isEqualTo("relay-job");
        assertThat(relay.jobName(config, Map.of("KFP_JOB_NAME", "payments-relay")))
                .isEqualTo("payments-relay");
        assertThat(relay.topics(config, Map.of("KFP_SINK_TOPIC", "elsewhere")))
                .endsWith("elsewhere");
    }

    @Test
    void anUnreadableConfigIsReportedWithTheLoadersMessage() throws Exception {
        Path config = dir.resolve("broken.yaml");
        Files.writeString(config, "source: [unclosed\n");
        assertThatThrownBy(() -> TestJobs.of("relay").topics(config, Map.of()))
                .isInstanceOf(KfpException.class)
                .hasMessageContaining(
                        "cannot read the relay job's config: --config = \"" + config + "\"")
                .hasMessageContaining("not valid YAML");
    }

    @Test
    void theSpecSaysWhatItReadsAndWritesUnderItsConfig() {
        DeployedJob relay = TestJobs.of("relay");
        var endpoints = relay.endpoints(SHIPPED.resolve("relay.yaml"), Map.of());
        assertThat(endpoints.inputs()).containsExactly("lines");
        assertThat(endpoints.outputTopics()).containsExactly("relayed");
        assertThat(endpoints.consumerGroup()).isEqualTo("kfp.relay-job.default");
        assertThat(endpoints.transactionalIdPrefix()).isEqualTo("kfp.relay-job.default");
        assertThat(endpoints.copies()).as("kfp verify relay can match it").isTrue();
        var counting =
                relay.spec()
                        .endpoints(
                                relay.settings(
                                        SHIPPED.resolve("relay.yaml"),
                                        Map.of(),
                                        List.of(
                                                "--relay.transform",
                                                "window-count",
                                                "--relay.late-topic",
                                                "late")));
        assertThat(counting.outputTopics())
                .as("the relay's late-record topic is an output too")
                .containsExactly("relayed", "late");
        assertThat(counting.copies()).as("counts are no copies").isFalse();
        var ingest = TestJobs.of("ingest").endpoints(SHIPPED.resolve("ingest.yaml"), Map.of());
        assertThat(ingest.inputs()).containsExactly("sockets localhost:9999");
        assertThat(ingest.consumerGroup()).isNull();
        assertThat(ingest.transactionalIdPrefix())
                .as("at-least-once by default: no transactions")
                .isNull();
        var sink = TestJobs.of("sink").endpoints(SHIPPED.resolve("sink.yaml"), Map.of());
        assertThat(sink.prints()).isTrue();
        assertThat(sink.outputTopics()).isEmpty();
    }

    @Test
    void anInvalidSettingIsReportedAsTheJobWouldReportIt() throws Exception {
        Path config = dir.resolve("relay.yaml");
        Files.writeString(
                config, "source.topics: in\nsink.topic: out\nsink.delivery-guarantee: twice\n");
        assertThatThrownBy(() -> TestJobs.of("relay").settings(config, Map.of()))
                .isInstanceOf(KfpException.class)
                .hasMessageContaining("cannot read the relay job's config: ")
                .hasMessageContaining("sink.delivery-guarantee");
    }
}
