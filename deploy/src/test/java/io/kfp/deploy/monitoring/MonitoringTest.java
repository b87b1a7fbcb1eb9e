package io.kfp.deploy.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What kfp monitoring scrapes and where it sends alerts, without starting anything. */
class MonitoringTest {

    static final Path HOME = Path.of("").toAbsolutePath();

    private static Monitoring monitoring(Map<String, String> env) {
        return new Monitoring(KfpSettings.from(env, HOME, HOME), System.out, System.err);
    }

    @Test
    void itScrapesEveryReporterPortAndPostsToTheWebhookWhenOneIsSet() {
        Monitoring monitoring =
                monitoring(
                        Map.of(
                                "KFP_PROM_PORTS",
                                "9300-9302",
                                "KFP_ALERT_WEBHOOK",
                                "http://127.0.0.1:5001/alerts"));
        assertThat(monitoring.flinkTargets())
                .isEqualTo("'127.0.0.1:9300', '127.0.0.1:9301', '127.0.0.1:9302'");
        assertThat(monitoring.webhookConfigs())
                .contains("url: 'http://127.0.0.1:5001/alerts'", "send_resolved: true");
        assertThat(monitoring(Map.of()).webhookConfigs()).as("no webhook: none").isEmpty();
    }

    @Test
    void theLabIsNotYetMonitored() {
        assertThatThrownBy(
                        () ->
                                monitoring(
                                                Map.of(
                                                        "KFP_TOPOLOGY",
                                                        HOME.resolve("src/test/resources/labt.yaml")
                                                                .toString()))
                                        .start())
                .hasMessageContaining("one-host setup");
    }
}
