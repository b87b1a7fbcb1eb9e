package io.kfp.common.entry;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.config.PlainTextFormatter;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.preflight.BrokerView;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobEntryPointTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final AtomicInteger runs = new AtomicInteger();
    private final List<Configuration> ranWith = new ArrayList<>();
    private Set<String> brokerTopics = Set.of("in", "out");
    private long brokerMaxTimeoutMs = 900_000;

    private final JobSpec spec = spec(config -> env -> {});

    private static JobSpec spec(Function<ReadableConfig, Workflow> workflow) {
        return JobSpec.builder("relay-job", "copies a topic")
                .owner("tests")
                .group(SourceOptions.GROUP)
                .group(KafkaSinkOptions.GROUP)
                .defaultValue(SourceOptions.TOPICS, "in")
                .defaultValue(KafkaSinkOptions.TOPIC, "out")
                .workflow(workflow);
    }

    /**
     * Counts the launches instead of running anything: the entry point decides whether to launch.
     */
    private final JobEntryPoint.Launcher launcher =
            (launched, config) -> {
                runs.incrementAndGet();
                ranWith.add(config);
            };

    private int run(Map<String, String> env, String... args) {
        BrokerView broker =
                new BrokerView() {
                    @Override
                    public void ping() {}

                    @Override
                    public Set<String> topicNames() {
                        return brokerTopics;
                    }

                    @Override
                    public Map<String, Integer> partitionCounts(Collection<String> topics) {
                        return Map.of();
                    }

                    @Override
                    public OptionalLong transactionMaxTimeoutMs() {
                        return OptionalLong.of(brokerMaxTimeoutMs);
                    }

                    @Override
                    public void close() {}
                };
        return new JobEntryPoint(
                        env,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        (props, timeout) -> broker)
                .run(spec, args, launcher);
    }

    private int run(String... args) {
        return run(Map.of(), args);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpListsEveryOptionWithItsDefaultAndDescription() {
        assertThat(run("--help")).isZero();
        String help = stdout();
        for (OptionGroup group : spec.groups()) {
            assertThat(help).contains("\n" + group.title() + "\n");
            for (ConfigOption<?> option : group.options()) {
                assertThat(help).contains("--" + option.key() + "  (default: ");
                String firstWords =
                        String.join(
                                " ",
                                Arrays.asList(
                                                PlainTextFormatter.render(option.description())
                                                        .split(" "))
                                        .subList(0, 3));
                assertThat(help.replaceAll("\\s+", " ")).contains(firstWords);
            }
        }
        assertThat(help)
                .contains("--checkpoint.interval  (default: 5 s)")
                .contains("--sink.transaction-timeout  (default: 15 min)")
                .contains("--source.topics  (default: in)")
                .contains("--job.name  (default: relay-job)")
                .contains("--kafka.properties.<name>")
                .contains("KFP_CHECKPOINT_INTERVAL");
        assertThat(runs).hasValue(0);
    }

    @Test
    void badOptionsPrintEveryErrorExitTwoAndSubmitNothing() {
        int code =
                run(
                        "--checkpoint.interval",
                        "5x",
                        "--sink.delivery-guarantee",
                        "twice",
                        "--sink.topik",
                        "x",
                        "stray");

        assertThat(code).isEqualTo(2);
        assertThat(runs).hasValue(0);
        String errors = stderr();
        assertThat(errors)
                .startsWith("relay-job: 4 configuration errors; nothing was submitted.")
                .contains("checkpoint.interval = \"5x\" (command line): not a duration.")
                .contains(
                        "sink.delivery-guarantee = \"twice\"",
                        "one of exactly-once, at-least-once, none")
                .contains("sink.topik", "did you mean 'sink.topic'?")
                .contains("stray", "unexpected argument")
                .contains("Run relay-job --help")
                .doesNotContain("Exception", "\tat ");
    }

    @Test
    void environmentErrorsNameTheVariable() {
        assertThat(run(Map.of("KFP_CHECKPOINT_TIMEOUT", "forever"))).isEqualTo(2);
        assertThat(stderr())
                .contains("checkpoint.timeout = \"forever\" (environment KFP_CHECKPOINT_TIMEOUT)");
    }

    @Test
    void anUnknownKfpVariableIsAWarningAndTheJobRuns() {
        assertThat(run(Map.of("KFP_HOME", "/opt/kfp"))).isZero();
        assertThat(runs).hasValue(1);
        assertThat(stderr())
                .contains(
                        "relay-job: warning: environment variable KFP_HOME is not an option of this job; ignored.");
    }

    @Test
    void anUnreadableConfigFileIsTheOnlyErrorReported(@TempDir Path dir) throws Exception {
        Path broken = dir.resolve("relay.yaml");
        Files.writeString(broken, "source:\n  topics: [in\nsink.topic: out\n");
        assertThat(run("--config", broken.toString(), "--checkpoint.interval", "5x")).isEqualTo(2);
        assertThat(stderr())
                .startsWith("relay-job: 1 configuration error; nothing was submitted.")
                .contains("not valid YAML: line ")
                .doesNotContain("checkpoint.interval", "Exception", "\tat ");
        assertThat(runs).hasValue(0);
    }

    @Test
    void preflightFailureExitsTwoWithoutSubmitting() {
        brokerTopics = Set.of("in");
        brokerMaxTimeoutMs = 60_000;
        assertThat(run()).isEqualTo(2);
        assertThat(runs).hasValue(0);
        assertThat(stderr())
                .startsWith("relay-job: 2 problems with the Kafka cluster; nothing was submitted.")
                .contains("the output topic 'out' does not exist")
                .contains("transaction.max.timeout.ms is 60000");
    }

    @Test
    void skippingPreflightRunsTheJob() {
        brokerTopics = Set.of();
        assertThat(run("--preflight.skip")).isZero();
        assertThat(runs).hasValue(1);
    }

    @Test
    void validSettingsReachTheJobTyped() {
        assertThat(run("--sink.topic", "out", "--checkpoint.interval", "2 s")).isZero();
        assertThat(runs).hasValue(1);
        assertThat(ranWith.get(0).get(KafkaSinkOptions.TOPIC)).isEqualTo("out");
        assertThat(stderr()).isEmpty();
    }

    @Test
    void aJobLeavingMillionsOfTransactionalIdsIsWarnedOfAndRuns() {
        assertThat(
                        run(
                                "--sink.topic",
                                "out",
                                "--checkpoint.interval",
                                "100 ms",
                                "--job.parallelism",
                                "2"))
                .isZero();
        assertThat(runs).hasValue(1);
        assertThat(stderr())
                .startsWith(
                        "relay-job: warning: sink.transaction-naming incrementing with"
                                + " checkpoint.interval 100 ms:")
                .containsOnlyOnce("warning");
    }

    @Test
    void printAclsPrintsTheKafkaAclsLinesAndRunsNothing() {
        brokerTopics = Set.of();
        int code =
                run("--preflight.print-acls", "User:relay", "--kafka.bootstrap-servers", "k:9092");
        assertThat(code).as(stderr()).isZero();
        assertThat(runs).as("the job is not run").hasValue(0);
        assertThat(stdout())
                .contains(
                        "kafka-acls.sh --bootstrap-server k:9092 --add --allow-principal User:relay --operation Read --operation Describe --topic in",
                        "--operation Write --operation Describe --operation DescribeConfigs --topic out",
                        "--transactional-id kfp.relay-job.default --resource-pattern-type prefixed");
        assertThat(stdout())
                .as("preflight did not run: the missing topics went unnoticed")
                .doesNotContain("does not exist");
    }

    @Test
    void printAclsWantsAPrincipal() {
        assertThat(run("--preflight.print-acls", "relay")).isEqualTo(2);
        assertThat(stderr()).contains("preflight.print-acls", "User:relay");
    }

    @Test
    void aFailingJobExitsOneWithItsCause() {
        JobSpec failing =
                spec(
                        config -> {
                            throw new IllegalStateException(
                                    "wrapper", new RuntimeException("broker fenced us"));
                        });
        int code =
                new JobEntryPoint(
                                Map.of(),
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8),
                                (props, timeout) -> {
                                    throw new IllegalStateException("not reached");
                                })
                        .run(failing, new String[] {"--preflight.skip"});
        assertThat(code).isEqualTo(1);
        assertThat(stderr()).contains("the job failed", "broker fenced us");
    }

    @Test
    void effectiveConfigurationHidesSecrets() {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        new String[] {
                            "--kafka.properties.sasl.jaas.config", "x password=\"hunter2\";"
                        },
                        Map.of(),
                        spec.defaults(),
                        spec.groups());
        Configuration config = ConfigValidator.validate(loaded.raw(), spec.groups(), List.of());
        String described =
                JobEntryPoint.describeEffective(
                        loaded.raw(), spec.groups(), spec.defaults(), config);
        assertThat(described)
                .contains("kafka.properties.sasl.jaas.config = ******  [command line]")
                .contains("checkpoint.interval = 5 s  [default]")
                .contains("sink.topic = out  [job default]")
                .contains("checkpoint.enabled = true  [default]")
                .doesNotContain("hunter2");
    }
}
