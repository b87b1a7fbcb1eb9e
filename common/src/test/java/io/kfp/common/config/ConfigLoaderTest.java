package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.socket.SocketOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    private static final List<OptionGroup> GROUPS =
            List.of(CheckpointOptions.GROUP, KafkaClientOptions.GROUP, KafkaSinkOptions.GROUP);

    @TempDir Path dir;

    @Test
    void laterLayersWinOverEarlierOnes() throws Exception {
        Path file = dir.resolve("job.yaml");
        Files.writeString(
                file,
                "checkpoint:\n  interval: 2 s\n  timeout: 30 s\n  min-pause: 100 ms\nsink.topic: from-file\n");
        Map<String, String> env =
                Map.of("KFP_CHECKPOINT_TIMEOUT", "20 s", "KFP_CHECKPOINT_MIN_PAUSE", "200 ms");
        Map<String, String> jobDefaults =
                Map.of("checkpoint.interval", "9 s", "sink.topic", "default-topic");

        RawConfig raw =
                ConfigLoader.load(
                                new String[] {
                                    "--config", file.toString(), "--checkpoint.min-pause", "300 ms"
                                },
                                env,
                                jobDefaults,
                                GROUPS)
                        .raw();

        assertThat(raw.entry("checkpoint.interval").value()).isEqualTo("2 s");
        assertThat(raw.entry("checkpoint.interval").origin()).isEqualTo("file " + file);
        assertThat(raw.entry("checkpoint.timeout").value()).isEqualTo("20 s");
        assertThat(raw.entry("checkpoint.timeout").origin())
                .isEqualTo("environment KFP_CHECKPOINT_TIMEOUT");
        assertThat(raw.entry("checkpoint.min-pause").value()).isEqualTo("300 ms");
        assertThat(raw.entry("checkpoint.min-pause").origin()).isEqualTo("command line");
        assertThat(raw.entry("sink.topic").value()).isEqualTo("from-file");
    }

    @Test
    void anOldKeyIsReadUnderItsNewNameWithAWarning() {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {"--ingest.endpoints", "h:1"},
                        Map.of("KFP_INGEST_BOUNDED", "true"),
                        Map.of(),
                        List.of(SocketOptions.GROUP));
        assertThat(loaded.raw().values())
                .containsEntry("socket.endpoints", "h:1")
                .containsEntry("socket.bounded", "true")
                .doesNotContainKeys("ingest.endpoints", "ingest.bounded");
        assertThat(loaded.warnings())
                .contains(
                        "ingest.endpoints is the old name of socket.endpoints: it is still read,"
                                + " but rename it where it is set.",
                        "ingest.bounded is the old name of socket.bounded: it is still read, but"
                                + " rename it where it is set.");
    }

    @Test
    void jobDefaultsApplyWhenNothingElseIsGiven() {
        RawConfig raw =
                ConfigLoader.load(new String[0], Map.of(), Map.of("sink.topic", "t"), GROUPS).raw();
        assertThat(raw.entry("sink.topic").value()).isEqualTo("t");
        assertThat(raw.entry("sink.topic").origin()).isEqualTo("job default");
    }

    @Test
    void readsPropertiesFilesAndTheConfigFileFromTheEnvironment() throws Exception {
        Path file = dir.resolve("job.properties");
        Files.writeString(file, "sink.topic = out\nkafka.properties.linger.ms=7\n");
        RawConfig raw =
                ConfigLoader.load(
                                new String[0],
                                Map.of("KFP_CONFIG", file.toString()),
                                Map.of(),
                                GROUPS)
                        .raw();
        assertThat(raw.values())
                .containsEntry("sink.topic", "out")
                .containsEntry("kafka.properties.linger.ms", "7");
    }

    @Test
    void yamlListsBecomeCommaSeparatedValues() throws Exception {
        Path file = dir.resolve("job.yml");
        Files.writeString(file, "source:\n  topics: [a, b]\n");
        RawConfig raw =
                ConfigLoader.load(new String[] {"--config=" + file}, Map.of(), Map.of(), GROUPS)
                        .raw();
        assertThat(raw.entry("source.topics").value()).isEqualTo("a,b");
    }

    @Test
    void environmentNamesMapToKeysIncludingPassThroughProperties() {
        Map<String, String> env =
                Map.of(
                        "KFP_SINK_DELIVERY_GUARANTEE", "at-least-once",
                        "KFP_KAFKA_PROPERTIES_SASL_MECHANISM", "PLAIN",
                        "KFP_NOT_AN_OPTION", "x",
                        "HOME", "/root");
        ConfigLoader.Loaded loaded = ConfigLoader.load(new String[0], env, Map.of(), GROUPS);
        assertThat(loaded.raw().values())
                .containsEntry("sink.delivery-guarantee", "at-least-once")
                .containsEntry("kafka.properties.sasl.mechanism", "PLAIN")
                .doesNotContainKey("not.an.option")
                .doesNotContainKey("home");
        assertThat(loaded.syntaxProblems()).isEmpty();
        assertThat(loaded.warnings())
                .containsExactly(
                        "environment variable KFP_NOT_AN_OPTION is not an option of this job; ignored.");
    }

    @Test
    void kfpsOwnVariablesAreAWarningNotAnError() {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[0],
                        Map.of("KFP_HOME", "/opt/kfp", "KFP_SINK_TOPIK", "x"),
                        Map.of(),
                        GROUPS);
        assertThat(loaded.raw().values()).isEmpty();
        assertThat(loaded.warnings())
                .containsExactly(
                        "environment variable KFP_HOME is not an option of this job; ignored.",
                        "environment variable KFP_SINK_TOPIK is not an option of this job; ignored. Did you mean KFP_SINK_TOPIC?");
    }

    @Test
    void aSecondConfigFileIsAnError() throws Exception {
        Path a = dir.resolve("a.yaml");
        Path b = dir.resolve("b.yaml");
        Files.writeString(a, "sink.topic: a\n");
        Files.writeString(b, "sink.topic: b\n");
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {"--config", a.toString(), "--config=" + b},
                        Map.of(),
                        Map.of(),
                        GROUPS);
        assertThat(loaded.syntaxProblems())
                .singleElement()
                .satisfies(
                        p ->
                                assertThat(p.describe())
                                        .contains(
                                                b.toString(),
                                                "a second config file (the first is " + a + ")"));
    }

    @Test
    void brokenYamlIsReportedWithItsLineAndColumnAndWhy() throws Exception {
        Path broken = dir.resolve("job.yaml");
        Files.writeString(broken, "job:\n  name: relay\n checkpoint.interval: 5 s\n");
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {"--config", broken.toString()}, Map.of(), Map.of(), GROUPS);
        assertThat(loaded.fileUnreadable()).isTrue();
        assertThat(loaded.syntaxProblems())
                .singleElement()
                .extracting(ConfigProblem::problem)
                .asString()
                .isEqualTo(
                        "the file is not valid YAML: line 3, column 2: expected <block end>, but found '<block mapping start>'");
    }

    @Test
    void yamlErrorsNeverQuoteTheFile() throws Exception {
        Path broken = dir.resolve("secret.yaml");
        Files.writeString(broken, "kafka.properties.sasl.jaas.config: [password=hunter2\n");
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {"--config", broken.toString()}, Map.of(), Map.of(), GROUPS);
        assertThat(loaded.syntaxProblems())
                .singleElement()
                .extracting(ConfigProblem::describe)
                .asString()
                .contains("line 2, column 1")
                .doesNotContain("hunter2");
    }

    @Test
    void everyDeclaredKeyHasADistinctEnvironmentName() {
        List<OptionGroup> all =
                JobSpec.builder("any", "")
                        .owner("tests")
                        .group(SourceOptions.GROUP)
                        .group(KafkaSinkOptions.GROUP)
                        .workflow(c -> env -> {})
                        .groups();
        List<String> names = new ArrayList<>();
        for (OptionGroup group : all) {
            for (ConfigOption<?> option : group.options()) {
                names.add(ConfigLoader.envName(option.key()));
                option.fallbackKeys().forEach(f -> names.add(ConfigLoader.envName(f.getKey())));
            }
            group.passThroughPrefixes().forEach(p -> names.add(ConfigLoader.envName(p.prefix())));
        }
        assertThat(names).doesNotHaveDuplicates().allMatch(n -> n.matches("KFP_[A-Z0-9_]+"));
    }

    @Test
    void flinksKeyAndOursAreOneSettingWhoseLayerDecides() throws Exception {
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, "checkpoint.interval: 9 s\n");
        RawConfig raw =
                ConfigLoader.load(
                                new String[] {
                                    "--config",
                                    file.toString(),
                                    "--execution.checkpointing.interval",
                                    "7 s"
                                },
                                Map.of("KFP_CHECKPOINT_INTERVAL", "8 s"),
                                Map.of(),
                                GROUPS)
                        .raw();
        assertThat(raw.entry("checkpoint.interval").value()).isEqualTo("7 s");
        assertThat(raw.entry("checkpoint.interval").writtenAs())
                .isEqualTo("execution.checkpointing.interval");
        assertThat(raw.contains("execution.checkpointing.interval")).isFalse();

        RawConfig envWins =
                ConfigLoader.load(
                                new String[0],
                                Map.of("KFP_CHECKPOINT_INTERVAL", "8 s"),
                                Map.of("execution.checkpointing.interval", "3 s"),
                                GROUPS)
                        .raw();
        assertThat(envWins.entry("checkpoint.interval").value()).isEqualTo("8 s");
    }

    @Test
    void strayArgumentsNeverShowSecrets() {
        assertThat(
                        ConfigLoader.strayForDisplay(
                                "-kafka.properties.ssl.key.password=changeit", null))
                .isEqualTo("******");
        assertThat(ConfigLoader.strayForDisplay("hunter2", "-kafka.properties.sasl.password"))
                .isEqualTo("******");
        assertThat(ConfigLoader.strayForDisplay("x LoginModule required password=\"p\";", "--a"))
                .isEqualTo("******");
        assertThat(ConfigLoader.strayForDisplay("-sink.topic=out", null))
                .isEqualTo("-sink.topic=out");
        assertThat(ConfigLoader.strayForDisplay("relay", null)).isEqualTo("relay");
    }

    @Test
    void aSecretsValueThatStartsWithTwoDashesIsItsValueNotAnUnknownOption() {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {
                            "--kafka.properties.ssl.key.password", "--s3cr3t", "--sink.topic", "out"
                        },
                        Map.of(),
                        Map.of(),
                        GROUPS);
        assertThat(loaded.raw().values())
                .containsEntry("kafka.properties.ssl.key.password", "--s3cr3t")
                .containsEntry("sink.topic", "out")
                .doesNotContainKey("s3cr3t");
        assertThat(loaded.syntaxProblems()).isEmpty();
    }

    @Test
    void commandLineFormsAndHelp() {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {
                            "--sink.topic=out",
                            "--preflight.skip",
                            "--checkpoint.enabled",
                            "false",
                            "-h"
                        },
                        Map.of(),
                        Map.of(),
                        GROUPS);
        assertThat(loaded.helpRequested()).isTrue();
        assertThat(loaded.raw().values())
                .containsEntry("sink.topic", "out")
                .containsEntry("preflight.skip", "true")
                .containsEntry("checkpoint.enabled", "false");
        assertThat(loaded.syntaxProblems()).isEmpty();
    }

    @Test
    void reportsStrayArgumentsMissingAndBrokenFiles() throws Exception {
        Path broken = dir.resolve("broken.yaml");
        Files.writeString(broken, "a: [unclosed\n");
        ConfigLoader.Loaded stray =
                ConfigLoader.load(
                        new String[] {"relay", "--config", broken.toString()},
                        Map.of(),
                        Map.of(),
                        GROUPS);
        assertThat(stray.syntaxProblems())
                .extracting(ConfigProblem::describe)
                .anySatisfy(d -> assertThat(d).startsWith("relay").contains("unexpected argument"))
                .anySatisfy(d -> assertThat(d).contains("not valid YAML"));

        ConfigLoader.Loaded missing =
                ConfigLoader.load(
                        new String[] {"--config", dir.resolve("nope.yaml").toString()},
                        Map.of(),
                        Map.of(),
                        GROUPS);
        assertThat(missing.syntaxProblems())
                .singleElement()
                .extracting(ConfigProblem::describe)
                .asString()
                .contains("nope.yaml", "does not exist");

        ConfigLoader.Loaded dangling =
                ConfigLoader.load(new String[] {"--config"}, Map.of(), Map.of(), GROUPS);
        assertThat(dangling.syntaxProblems())
                .singleElement()
                .extracting(ConfigProblem::problem)
                .isEqualTo("no file given.");
    }
}
