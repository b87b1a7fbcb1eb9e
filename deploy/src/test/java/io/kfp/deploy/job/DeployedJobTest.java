package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.nio.file.Files;
import java.nio.file.Path;
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
        assertThat(DeployedJob.of("ingest").topics(SHIPPED.resolve("ingest.yaml"), Map.of()))
                .containsExactly("lines");
        assertThat(DeployedJob.of("relay").topics(SHIPPED.resolve("relay.yaml"), Map.of()))
                .containsExactly("lines", "relayed");
        assertThat(DeployedJob.of("sink").topics(SHIPPED.resolve("sink.yaml"), Map.of()))
                .containsExactly("relayed");
        assertThat(DeployedJob.of("relay").jobName(SHIPPED.resolve("relay.yaml"), Map.of()))
                .isEqualTo("relay-job");
    }

    @Test
    void nestedKeysListsAndTheEnvironmentAreRead() throws Exception {
        Path config = dir.resolve("relay.yaml");
        Files.writeString(
                config, "source:\n  topics: [orders, refunds]\nsink:\n  topic: all-payments\n");
        DeployedJob relay = DeployedJob.of("relay");
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
        assertThatThrownBy(() -> DeployedJob.of("relay").topics(config, Map.of()))
                .isInstanceOf(KfpException.class)
                .hasMessageContaining(
                        "cannot read the relay job's config: --config = \"" + config + "\"")
                .hasMessageContaining("not valid YAML");
    }

    @Test
    void theJarCarriesTheProjectVersion() {
        KfpSettings settings = KfpSettings.from(Map.of(), Path.of("/r/deploy"), Path.of("/r"));
        assertThat(DeployedJob.of("sink").jar(settings).toString())
                .isEqualTo("/r/sink-job/target/sink-job-" + settings.version() + "-job.jar");
        assertThatThrownBy(() -> DeployedJob.of("window"))
                .hasMessage("unknown job 'window': use ingest, relay or sink");
    }
}
