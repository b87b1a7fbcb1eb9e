package io.kfp.deploy.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void inTheLabItRunsOnTheMonitoringHostAndScrapesEveryFlinkHost(@TempDir Path dir)
            throws Exception {
        Path labt = HOME.resolve("src/test/resources/labt.yaml");
        Monitoring lab =
                monitoring(Map.of("KFP_TOPOLOGY", labt.toString(), "KFP_PROM_PORTS", "9300-9301"));
        assertThat(lab.address()).isEqualTo("198.18.1.51");
        assertThat(lab.consoleUrl()).isEqualTo("http://198.18.1.51:9090/consoles/kfp.html");
        assertThat(lab.flinkTargets())
                .isEqualTo(
                        "'198.18.1.21:9300', '198.18.1.21:9301', '198.18.1.22:9300',"
                                + " '198.18.1.22:9301', '198.18.1.41:9300', '198.18.1.41:9301',"
                                + " '198.18.1.42:9300', '198.18.1.42:9301', '198.18.1.43:9300',"
                                + " '198.18.1.43:9301'");

        Path without = dir.resolve("nomon.yaml");
        Files.writeString(
                without,
                Files.readString(labt)
                        .lines()
                        .filter(line -> !line.contains("monitoring"))
                        .collect(Collectors.joining("\n")));
        Monitoring unmonitored = monitoring(Map.of("KFP_TOPOLOGY", without.toString()));
        assertThat(unmonitored.running()).as("nothing to ask").isFalse();
        assertThatThrownBy(unmonitored::start)
                .hasMessageContaining("has no monitoring host")
                .hasMessageContaining("roles: [monitoring]");
    }
}
