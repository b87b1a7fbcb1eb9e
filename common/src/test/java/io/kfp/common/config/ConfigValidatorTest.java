package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.checkpoint.FaultTolerance;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.core.execution.CheckpointingMode;
import org.junit.jupiter.api.Test;

/** Every validation message: it names the key, quotes the value and says what to do. */
class ConfigValidatorTest {

    private static final JobSpec SPEC =
            JobSpec.builder("test-job", "for tests")
                    .owner("tests")
                    .group(SourceOptions.GROUP)
                    .group(KafkaSinkOptions.GROUP)
                    .defaultValue(SourceOptions.TOPICS, "in")
                    .defaultValue(KafkaSinkOptions.TOPIC, "out")
                    .workflow(c -> env -> {});

    static Configuration valid(String... args) {
        return SPEC.configuration(args);
    }

    static List<ConfigProblem> problems(String... args) {
        try {
            valid(args);
        } catch (InvalidConfigurationException e) {
            return e.problems();
        }
        throw new AssertionError("expected configuration errors for " + List.of(args));
    }

    static ConfigProblem onlyProblem(String... args) {
        List<ConfigProblem> all = problems(args);
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    @Test
    void defaultsAreValid() {
        Configuration config = valid();
        assertThat(config.get(CheckpointOptions.INTERVAL)).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.get(KafkaSinkOptions.DELIVERY_GUARANTEE))
                .isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(config.get(JobOptions.NAME)).isEqualTo("test-job");
    }

    @Test
    void reportsEveryBadSettingAtOnce() {
        List<ConfigProblem> all =
                problems(
                        "--checkpoint.interval", "5x",
                        "--checkpoint.mode", "twice",
                        "--checkpoint.max-concurrent", "one",
                        "--checkpoint.enabled", "yes please",
                        "--checkpoint.intervall", "5 s");
        assertThat(all)
                .extracting(ConfigProblem::key)
                .containsExactlyInAnyOrder(
                        "checkpoint.interval",
                        "checkpoint.mode",
                        "checkpoint.max-concurrent",
                        "checkpoint.enabled",
                        "checkpoint.intervall");
    }

    @Test
    void typeErrorsNameKeyValueOriginAndAcceptedValues() {
        assertThat(onlyProblem("--checkpoint.interval", "5x").describe())
                .isEqualTo(
                        "checkpoint.interval = \"5x\" (command line): not a duration."
                                + " Fix: write a number with a unit, e.g. 500 ms, 5 s, 2 min, 1 h.");
        assertThat(onlyProblem("--checkpoint.mode", "twice").describe())
                .contains("checkpoint.mode = \"twice\"", "one of exactly-once, at-least-once");
        assertThat(onlyProblem("--checkpoint.max-concurrent", "one").describe())
                .contains("not a whole number", "e.g. 1");
        assertThat(onlyProblem("--state.incremental", "maybe").describe())
                .contains("state.incremental", "true or false");
    }

    @Test
    void enumValuesAreCaseInsensitive() {
        assertThat(
                        valid("--sink.delivery-guarantee", "AT-LEAST-ONCE")
                                .get(KafkaSinkOptions.DELIVERY_GUARANTEE))
                .isEqualTo(DeliveryGuarantee.AT_LEAST_ONCE);
    }

    @Test
    void ourSpellingsSelectFlinksOwnConstants() {
        Configuration config =
                valid(
                        "--checkpoint.mode", "at-least-once",
                        "--checkpoint.retention", "delete_on_cancellation",
                        "--sink.delivery-guarantee", "none");
        assertThat(config.get(CheckpointOptions.MODE)).isEqualTo(CheckpointingMode.AT_LEAST_ONCE);
        assertThat(config.get(CheckpointOptions.RETENTION))
                .isEqualTo(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
        assertThat(config.get(KafkaSinkOptions.DELIVERY_GUARANTEE))
                .isEqualTo(DeliveryGuarantee.NONE);
        assertThat(onlyProblem("--checkpoint.retention", "forever").describe())
                .contains(
                        "one of delete-on-cancellation, retain-on-cancellation, no-externalized-checkpoints");
        assertThat(onlyProblem("--checkpoint.retention", "NO_EXTERNALIZED_CHECKPOINTS").describe())
                .contains(
                        "nothing would be left to resume from",
                        "use retain-on-cancellation (the default) or delete-on-cancellation");
    }

    @Test
    void unknownKeysAreErrorsWithASuggestion() {
        ConfigProblem typo = onlyProblem("--sink.topik", "x");
        assertThat(typo.problem()).isEqualTo("unknown option for this job.");
        assertThat(typo.fix()).isEqualTo("did you mean 'sink.topic'?");
        assertThat(onlyProblem("--totally-unrelated", "x").fix()).contains("--help");
    }

    @Test
    void flinkKeysAndFlinkSpellingsAreAccepted() {
        Configuration config =
                valid(
                        "--execution.checkpointing.interval", "7 s",
                        "--state.backend.type", "hashmap",
                        "--execution.checkpointing.mode", "EXACTLY_ONCE");
        assertThat(config.get(CheckpointOptions.INTERVAL)).isEqualTo(Duration.ofSeconds(7));
        assertThat(config.get(CheckpointOptions.MODE)).isEqualTo(CheckpointingMode.EXACTLY_ONCE);
        assertThat(onlyProblem("--execution.checkpointing.interval", "soon").key())
                .isEqualTo("execution.checkpointing.interval");
    }

    @Test
    void optionsWithoutDefaultStillGetATypedHint() {
        assertThat(onlyProblem("--job.parallelism", "x").describe()).contains("not a whole number");
    }

    @Test
    void unknownEnvironmentVariablesAreIgnoredWithAnEnvironmentSuggestion() {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[0],
                        Map.of("KFP_SINK_TOPIK", "x"),
                        SPEC.defaults(),
                        SPEC.groups());
        assertThat(loaded.warnings())
                .singleElement()
                .asString()
                .endsWith("Did you mean KFP_SINK_TOPIC?");
        assertThat(loaded.raw().values()).doesNotContainKey("sink.topik");
    }

    @Test
    void aMisspeltKafkaClientPropertyGetsKafkasOwnName() {
        ConfigProblem problem = onlyProblem("--kafka.properties.enable.idempotance", "true");
        assertThat(problem.key()).isEqualTo("kafka.properties.enable.idempotance");
        assertThat(problem.fix()).isEqualTo("did you mean 'kafka.properties.enable.idempotence'?");
        // Known names of any of the three clients, and a config provider's own settings, pass.
        assertThat(
                        valid(
                                "--kafka.properties.fetch.min.bytes",
                                "10",
                                "--kafka.properties.request.timeout.ms",
                                "30000",
                                "--kafka.properties.config.providers",
                                "file",
                                "--kafka.properties.config.providers.file.class",
                                "org.apache.kafka.common.config.provider.FileConfigProvider"))
                .isNotNull();
    }

    @Test
    void checkpointRanges() {
        assertThat(onlyProblem("--checkpoint.interval", "1 ms").fix())
                .contains("checkpoint.enabled=false");
        assertThat(onlyProblem("--checkpoint.max-concurrent", "0").problem())
                .contains("at least 1");
        assertThat(onlyProblem("--checkpoint.timeout", "0 ms").key())
                .isEqualTo("checkpoint.timeout");
        assertThat(onlyProblem("--checkpoint.dir", "file://relative/path").problem())
                .contains("file:///data/ckpt");
        assertThat(onlyProblem("--checkpoint.savepoint-dir", "hdfs://bad host/x").key())
                .isEqualTo("checkpoint.savepoint-dir");
    }

    @Test
    void singleSlashFileUrisAreKept() {
        assertThat(valid("--checkpoint.dir", "file:/data/ckpt").get(CheckpointOptions.DIRECTORY))
                .isEqualTo("file:/data/ckpt");
        assertThat(
                        FaultTolerance.flinkConfiguration(
                                        valid("--checkpoint.dir", "FILE:/data/ckpt"))
                                .get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo("FILE:/data/ckpt");
    }

    @Test
    void checksOfUnusedSettingsDoNotFire() {
        assertThat(valid("--restart.strategy", "fixed-delay", "--restart.initial-delay", "2 min"))
                .isNotNull();
        assertThat(valid("--restart.strategy", "none", "--restart.attempts", "0")).isNotNull();
        assertThat(
                        valid(
                                "--checkpoint.enabled",
                                "false",
                                "--checkpoint.interval",
                                "0 ms",
                                "--sink.delivery-guarantee",
                                "at-least-once"))
                .isNotNull();
        assertThat(onlyProblem("--restart.max-delay", "100 ms").problem()).contains("(1 s)");
    }

    @Test
    void restartsAreAlwaysBounded() {
        assertThat(onlyProblem("--restart.attempts", "0").fix()).contains("restart.strategy=none");
        assertThat(onlyProblem("--restart.attempts", "2147483647").problem())
                .contains("always bounded");
        assertThat(onlyProblem("--restart.max-delay", "100 ms").problem())
                .contains("restart.initial-delay");
        assertThat(onlyProblem("--restart.reset-after", "0 s").key())
                .isEqualTo("restart.reset-after");
        assertThat(valid("--restart.strategy", "fixed-delay", "--restart.reset-after", "0 s"))
                .isNotNull();
    }

    @Test
    void jobIdentityMustBeUsableInKafkaIds() {
        assertThat(onlyProblem("--job.name", "my job").problem()).contains("letters, digits");
        assertThat(onlyProblem("--job.instance-id", "a/b").key()).isEqualTo("job.instance-id");
        assertThat(onlyProblem("--job.parallelism", "0").key()).isEqualTo("job.parallelism");
    }

    @Test
    void kafkaConnection() {
        assertThat(onlyProblem("--kafka.bootstrap-servers", "localhost").problem())
                .isEqualTo("'localhost' is not host:port.");
        assertThat(valid("--kafka.bootstrap-servers", "a:9092, b:9093")).isNotNull();
        ConfigProblem owned = onlyProblem("--kafka.properties.isolation.level", "read_uncommitted");
        assertThat(owned.key()).isEqualTo("kafka.properties.isolation.level");
        assertThat(owned.fix()).isEqualTo("remove it and set source.isolation-level instead.");
        assertThat(onlyProblem("--kafka.properties.transaction.timeout.ms", "1").fix())
                .contains("sink.transaction-timeout");
        assertThat(valid("--kafka.properties.security.protocol", "SASL_SSL")).isNotNull();
        assertThat(onlyProblem("--kafka.properties.batch.size", "16384").fix())
                .contains("sink.batch-size");
        assertThat(onlyProblem("--kafka.properties.buffer.memory", "33554432").fix())
                .contains("sink.buffer-memory");
        assertThat(onlyProblem("--kafka.properties.max.poll.records", "500").fix())
                .contains("source.max-poll-records");
        ConfigProblem noRecords = onlyProblem("--source.max-poll-records", "0");
        assertThat(noRecords.key()).isEqualTo("source.max-poll-records");
        assertThat(noRecords.problem()).isEqualTo("must be at least 1.");
    }

    @Test
    void producerBatching() {
        assertThat(onlyProblem("--sink.batch-size", "0 b").key()).isEqualTo("sink.batch-size");
        assertThat(onlyProblem("--sink.batch-size", "2 mb").problem())
                .contains("1 mb", "max.request.size");
        assertThat(onlyProblem("--sink.linger", "9999999999 s").key()).isEqualTo("sink.linger");
        assertThat(valid("--sink.batch-size", "1 mb", "--sink.linger", "0 ms")).isNotNull();
        ConfigProblem smallBuffer = onlyProblem("--sink.buffer-memory", "32 kb");
        assertThat(smallBuffer.key()).isEqualTo("sink.buffer-memory");
        assertThat(smallBuffer.problem()).contains("32 kb", "sink.batch-size is 64 kb");
        assertThat(valid("--sink.buffer-memory", "1 mb", "--sink.batch-size", "1 mb")).isNotNull();
    }

    @Test
    void sourceTopicsOrPatternExactlyOne() {
        assertThat(onlyProblem("--source.topic-pattern", "in-.*").problem()).contains("both set");
        assertThat(onlyProblem("--source.topics", "").problem()).isEqualTo("no input topic set.");
        assertThat(valid("--source.topics", "", "--source.topic-pattern", "in-.*")).isNotNull();
        assertThat(onlyProblem("--source.topics", "", "--source.topic-pattern", "in-[").problem())
                .contains("not a valid regular expression");
        assertThat(onlyProblem("--source.topics", "ok,not ok").problem()).contains("'not ok'");
        assertThat(onlyProblem("--source.topics", ",").problem()).isEqualTo("no input topic set.");
    }

    @Test
    void startingOffsetsProblemsListTheAcceptedForms() {
        ConfigProblem p = onlyProblem("--source.starting-offsets", "timestamp:yesterday");
        assertThat(p.problem()).contains("'yesterday'", "ISO-8601");
        assertThat(p.fix()).contains("group-offsets", "specific:<topic>:<partition>:<offset>");
        assertThat(onlyProblem("--source.starting-offsets", "specific:other:0:5").problem())
                .contains("'other' is not one of source.topics");
    }

    @Test
    void aBoundedSourceCannotBeRestoredBecauseTheConnectorWouldNeverFinish() {
        ConfigProblem p =
                onlyProblem(
                        "--source.bounded",
                        "true",
                        "--checkpoint.restore-from",
                        "file:/ckpt/chk-1");
        assertThat(p.key()).isEqualTo("source.bounded");
        assertThat(p.problem()).contains("FLINK-31006");
        assertThat(valid("--source.bounded", "true")).isNotNull();
    }

    @Test
    void sinkTopicIsRequired() {
        assertThat(onlyProblem("--sink.topic", "").problem()).isEqualTo("no output topic set.");
        assertThat(onlyProblem("--sink.topic", "a:b").key()).isEqualTo("sink.topic");
    }

    @Test
    void exactlyOnceNeedsExactlyOnceCheckpoints() {
        assertThat(onlyProblem("--checkpoint.enabled", "false").fix()).contains("at-least-once");
        assertThat(onlyProblem("--checkpoint.mode", "at-least-once").problem())
                .contains("duplicates");
        assertThat(
                        valid(
                                "--checkpoint.enabled",
                                "false",
                                "--sink.delivery-guarantee",
                                "at-least-once"))
                .isNotNull();
    }

    @Test
    void transactionTimeoutMustOutliveACheckpoint() {
        ConfigProblem p =
                onlyProblem(
                        "--sink.transaction-timeout",
                        "1 min",
                        "--checkpoint.tolerable-failures",
                        "0");
        assertThat(p.key()).isEqualTo("sink.transaction-timeout");
        assertThat(p.problem()).contains("5 s", "500 ms", "1 min", "= 125.5 s", "lost");
        assertThat(p.fix()).contains("raise sink.transaction-timeout above");
        // Not checked when there are no transactions.
        assertThat(
                        valid(
                                "--sink.transaction-timeout",
                                "1 min",
                                "--checkpoint.tolerable-failures",
                                "0",
                                "--sink.delivery-guarantee",
                                "at-least-once"))
                .isNotNull();
    }

    @Test
    void settingsThatBreakTheSinksPromiseAreRefusedNamingIt() {
        List<ConfigProblem> all =
                problems(
                        "--kafka.properties.acks", "1",
                        "--kafka.properties.enable.idempotence", "false",
                        "--source.isolation-level", "read_uncommitted");
        assertThat(all)
                .extracting(ConfigProblem::key)
                .containsExactlyInAnyOrder(
                        "kafka.properties.acks",
                        "kafka.properties.enable.idempotence",
                        "source.isolation-level");
        assertThat(all.get(0).value()).isEqualTo("1");
        assertThat(all.get(0).problem())
                .contains("leader's failure loses", "sink.delivery-guarantee=exactly-once");
        assertThat(
                        onlyProblem(
                                        "--kafka.properties.acks",
                                        "0",
                                        "--sink.delivery-guarantee",
                                        "at-least-once")
                                .problem())
                .contains("sink.delivery-guarantee=at-least-once promises");
        assertThat(all.get(2).problem()).contains("aborted");
        // What keeps the promise, or promises nothing, is accepted.
        assertThat(valid("--kafka.properties.acks", "all")).isNotNull();
        assertThat(valid("--kafka.properties.acks", "-1")).isNotNull();
        assertThat(valid("--kafka.properties.acks", "0", "--sink.delivery-guarantee", "none"))
                .isNotNull();
        assertThat(
                        valid(
                                "--source.isolation-level",
                                "read_uncommitted",
                                "--kafka.properties.enable.idempotence",
                                "false",
                                "--sink.delivery-guarantee",
                                "at-least-once"))
                .isNotNull();
    }

    @Test
    void secretsAreNeverQuotedBack() {
        ConfigProblem p = onlyProblem("--sink.password", "hunter2");
        assertThat(p.value()).isEqualTo(SecretRedaction.REDACTED);
        assertThat(p.describe()).doesNotContain("hunter2");
    }

    @Test
    void anOptionWithoutDefaultIsTypedByWhatFlinkParses() {
        assertThat(ConfigValidator.typeOf(ConfigOptions.key("t").intType().noDefaultValue()))
                .isEqualTo(Integer.class);
        assertThat(ConfigValidator.typeOf(ConfigOptions.key("t").durationType().noDefaultValue()))
                .isEqualTo(Duration.class);
        assertThat(ConfigValidator.typeOf(ConfigOptions.key("t").booleanType().noDefaultValue()))
                .isEqualTo(Boolean.class);
        assertThat(ConfigValidator.typeOf(ConfigOptions.key("t").stringType().noDefaultValue()))
                .isEqualTo(String.class);
        assertThat(
                        ConfigValidator.typeOf(
                                ConfigOptions.key("t")
                                        .enumType(CheckpointingMode.class)
                                        .noDefaultValue()))
                .isEqualTo(Object.class);
    }
}
