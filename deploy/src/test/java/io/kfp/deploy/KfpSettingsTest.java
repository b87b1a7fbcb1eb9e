package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KfpSettingsTest {

    static final Path HOME = Path.of("/opt/kfp/deploy");
    static final Path CALLER = Path.of("/home/me/work");

    @Test
    void defaultsAreTheOneHostSetup() {
        KfpSettings s = KfpSettings.from(Map.of(), HOME, CALLER);
        assertThat(s.run()).isEqualTo(HOME.resolve("run"));
        assertThat(s.runDirGiven()).isFalse();
        assertThat(s.bootstrap()).isEqualTo("127.0.0.1:9092");
        assertThat(s.externalKafka()).isFalse();
        assertThat(s.restUrl())
                .as("before the first cluster start made the key")
                .isEqualTo("http://127.0.0.1:8081");
        assertThat(s.taskManagers()).isEqualTo(3);
        assertThat(s.flinkDir()).isEqualTo(HOME.resolve("target/dist/flink"));
        assertThat(s.repo()).isEqualTo(Path.of("/opt/kfp"));
        assertThat(s.version())
                .as("from kfp.properties, filled in by the build")
                .matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void variablesMoveEverything() {
        KfpSettings s =
                KfpSettings.from(
                        Map.of(
                                "KFP_RUN_DIR",
                                "scratch/run",
                                "KFP_KAFKA_PORT",
                                "19092",
                                "KFP_REST_PORT",
                                "18081",
                                "KFP_TASKMANAGERS",
                                "5",
                                "FLINK_HOME",
                                "/opt/flink-2.2.1"),
                        HOME,
                        CALLER);
        assertThat(s.run())
                .as("relative to where kfp was called")
                .isEqualTo(CALLER.resolve("scratch/run"));
        assertThat(s.runDirGiven()).isTrue();
        assertThat(s.bootstrap()).isEqualTo("127.0.0.1:19092");
        assertThat(s.kafkaPortGiven()).isTrue();
        assertThat(s.restUrl()).isEqualTo("http://127.0.0.1:18081");
        assertThat(s.taskManagers()).isEqualTo(5);
        assertThat(s.flinkDir()).isEqualTo(Path.of("/opt/flink-2.2.1"));
        assertThat(KfpSettings.from(Map.of("KAFKA_BOOTSTRAP", "b1:9092,b2:9092"), HOME, CALLER))
                .satisfies(k -> assertThat(k.bootstrap()).isEqualTo("b1:9092,b2:9092"))
                .satisfies(k -> assertThat(k.externalKafka()).isTrue());
    }

    @Test
    void badValuesNameTheVariableAndTheFix() {
        assertThatThrownBy(
                        () ->
                                KfpSettings.from(
                                        Map.of("KFP_ALERT_WEBHOOK", "127.0.0.1:5001"),
                                        HOME,
                                        CALLER))
                .hasMessageStartingWith("KFP_ALERT_WEBHOOK=127.0.0.1:5001 is not an http(s) URL");
        assertThat(KfpSettings.from(Map.of(), HOME, CALLER))
                .satisfies(k -> assertThat(k.prometheusPort()).isEqualTo(9090))
                .satisfies(k -> assertThat(k.alertmanagerPort()).isEqualTo(9095))
                .satisfies(k -> assertThat(k.alertWebhook()).isNull());
        assertThatThrownBy(() -> KfpSettings.from(Map.of("KFP_KAFKA_PORT", "nine"), HOME, CALLER))
                .hasMessage(
                        "KFP_KAFKA_PORT=nine is not a positive whole number: give one, e.g. 9092.");
        assertThatThrownBy(() -> KfpSettings.from(Map.of("KFP_RPC_PORT", "70000"), HOME, CALLER))
                .hasMessage("KFP_RPC_PORT=70000 is not a port: give a number from 1 to 65535.");
        assertThatThrownBy(
                        () ->
                                KfpSettings.from(
                                        Map.of("KFP_PROM_PORTS", "9249..9259"), HOME, CALLER))
                .hasMessageContaining(
                        "KFP_PROM_PORTS=9249..9259 is not a port or a range of ports");
        assertThatThrownBy(() -> KfpSettings.from(Map.of("KFP_TASKMANAGERS", "0"), HOME, CALLER))
                .hasMessageContaining("KFP_TASKMANAGERS=0");
        assertThatThrownBy(
                        () ->
                                KfpSettings.from(
                                        Map.of("KFP_JVM_OPTIONS", "-Xss1m TieredStopAtLevel=1"),
                                        HOME,
                                        CALLER))
                .hasMessageStartingWith(
                        "KFP_JVM_OPTIONS=-Xss1m TieredStopAtLevel=1: 'TieredStopAtLevel=1' is not a"
                                + " JVM option.");
    }

    @Test
    void jvmOptionsComeAfterKfpsOwnSoTheUsersWin() {
        KfpSettings none = KfpSettings.from(Map.of("JAVA", "/jdk/bin/java"), HOME, CALLER);
        assertThat(none.java(List.of("-Xmx1g"))).containsExactly("/jdk/bin/java", "-Xmx1g");
        KfpSettings given =
                KfpSettings.from(
                        Map.of(
                                "JAVA",
                                "/jdk/bin/java",
                                "KFP_JVM_OPTIONS",
                                " -XX:TieredStopAtLevel=1   -Xmx2g "),
                        HOME,
                        CALLER);
        assertThat(given.java(List.of("-Xmx1g"), "-cp", "lib/*", "Main"))
                .containsExactly(
                        "/jdk/bin/java",
                        "-Xmx1g",
                        "-XX:TieredStopAtLevel=1",
                        "-Xmx2g",
                        "-cp",
                        "lib/*",
                        "Main");
        assertThat(KfpSettings.OWN_VARIABLES)
                .as("not read as a job option by a job's main")
                .contains("KFP_JVM_OPTIONS");
    }

    @Test
    void userPathsAreRelativeToTheCallerAndUrisStayAsGiven() {
        KfpSettings s = KfpSettings.from(Map.of(), HOME, CALLER);
        assertThat(s.absolute("sp/savepoint-1")).isEqualTo("/home/me/work/sp/savepoint-1");
        assertThat(s.absolute("../x")).isEqualTo("/home/me/x");
        assertThat(s.absolute("/abs/chk-3")).isEqualTo("/abs/chk-3");
        assertThat(s.absolute("file:/abs/chk-3")).isEqualTo("file:/abs/chk-3");
        assertThat(s.absolute("s3://bucket/sp")).isEqualTo("s3://bucket/sp");
    }

    @Test
    void templatesAreFilledWithTheSettings() {
        KfpSettings s =
                KfpSettings.from(
                        Map.of("KFP_RUN_DIR", "/r", "KFP_CONTROLLER_PORT", "19093"), HOME, CALLER);
        assertThat(
                        s.fill(
                                "log.dirs=@KFP_RUN_DIR@/kafka-data\nport=@KFP_CONTROLLER_PORT@ rest=@KFP_REST_PORT@ prom=@KFP_PROM_PORTS@"))
                .isEqualTo("log.dirs=/r/kafka-data\nport=19093 rest=8081 prom=9249-9259");
    }
}
