package io.kfp.common.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.ConfigProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class BrokerPreflightTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final BrokerPreflight.Requirements RELAY =
            new BrokerPreflight.Requirements(
                    "localhost:9092",
                    List.of("in"),
                    Optional.of("out"),
                    Optional.of(Duration.ofMinutes(15)));

    private final FakeBroker broker = new FakeBroker();

    @Test
    void aHealthyClusterHasNoProblems() {
        assertThat(BrokerPreflight.check(RELAY, broker, TIMEOUT)).isEmpty();
    }

    @Test
    void aRightMissingBesideDescribeIsNamedWithTheAclToAdd() {
        BrokerPreflight.Requirements relay =
                new BrokerPreflight.Requirements(
                        "localhost:9092",
                        List.of("in"),
                        Optional.of("out"),
                        Optional.of(Duration.ofMinutes(15)),
                        Optional.of("kfp.relay-job.default"),
                        Optional.of("kfp.relay-job.default"));
        assertThat(BrokerPreflight.check(relay, broker, TIMEOUT))
                .as("nothing known to be missing")
                .isEmpty();

        broker.allowed.put("in", Set.of(AclOperation.DESCRIBE));
        broker.allowed.put("out", Set.of(AclOperation.DESCRIBE, AclOperation.READ));
        broker.forbiddenGroups = Set.of("kfp.relay-job.default");
        broker.forbiddenPrefixes = Set.of("kfp.relay-job.default");
        List<ConfigProblem> problems = BrokerPreflight.check(relay, broker, TIMEOUT);
        assertThat(problems)
                .extracting(ConfigProblem::key)
                .containsExactly(
                        "source.topics",
                        "sink.topic",
                        "source.group-id",
                        "sink.transactional-id-prefix");
        assertThat(problems.get(0).describe())
                .contains(
                        "not authorized to read the input topic 'in' (Describe alone is granted)",
                        "--operation Read --topic in");
        assertThat(problems.get(1).describe())
                .contains(
                        "not authorized to write the output topic 'out'",
                        "--operation Write --operation Describe --topic out");
        assertThat(problems.get(2).describe())
                .contains(
                        "not authorized to use the consumer group 'kfp.relay-job.default'",
                        "--operation Read --group kfp.relay-job.default");
        assertThat(problems.get(3).describe())
                .contains(
                        "transactional ids starting with 'kfp.relay-job.default'",
                        "--transactional-id kfp.relay-job.default --resource-pattern-type prefixed",
                        "--preflight.print-acls User:NAME");

        broker.allowed.put("in", Set.of(AclOperation.ALL));
        broker.allowed.put("out", Set.of(AclOperation.WRITE, AclOperation.DESCRIBE));
        broker.forbiddenGroups = Set.of();
        broker.forbiddenPrefixes = Set.of();
        assertThat(BrokerPreflight.check(relay, broker, TIMEOUT))
                .as("All, or the very right, is enough")
                .isEmpty();
    }

    @Test
    void unreachableBrokerNamesTheServersTried() {
        broker.pingFailure =
                new ExecutionException(new TimeoutException("Timed out waiting for a node"));
        ConfigProblem p = single(BrokerPreflight.check(RELAY, broker, TIMEOUT));
        assertThat(p.key()).isEqualTo("kafka.bootstrap-servers");
        assertThat(p.problem())
                .contains("no Kafka broker answered within 10 s", "localhost:9092", "timed out");
        assertThat(p.fix()).contains("kafka.bootstrap-servers", "preflight.timeout");
    }

    @Test
    void aRefusedLoginNamesMechanismUserAndServersNeverThePassword() {
        broker.pingFailure =
                new ExecutionException(
                        new SaslAuthenticationException(
                                "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"));
        Properties connection = new Properties();
        connection.setProperty("security.protocol", "SASL_SSL");
        connection.setProperty("sasl.mechanism", "SCRAM-SHA-512");
        connection.setProperty(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"relay\" password=\"pw-s3cret\";");
        ConfigProblem p =
                single(BrokerPreflight.check(RELAY, broker, TIMEOUT, w -> {}, connection));
        assertThat(p.key()).isEqualTo("kafka.properties.sasl.jaas.config");
        assertThat(p.value()).as("the setting holds the password: never shown").isNull();
        assertThat(p.describe())
                .contains(
                        "refused the login of user 'relay' with SCRAM-SHA-512 over SASL_SSL",
                        "localhost:9092")
                .contains("kafka-configs.sh")
                .doesNotContain("pw-s3cret");

        connection.setProperty("sasl.jaas.config", "${file:/etc/kfp/relay.properties:jaas}");
        assertThat(
                        single(BrokerPreflight.check(RELAY, broker, TIMEOUT, w -> {}, connection))
                                .problem())
                .as("a jaas config from a config provider is named by its reference")
                .contains("the user of ${file:/etc/kfp/relay.properties:jaas}");

        connection.setProperty(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"relay\" password=\"${file:/etc/kfp/pw:relay}\";");
        assertThat(
                        single(BrokerPreflight.check(RELAY, broker, TIMEOUT, w -> {}, connection))
                                .problem())
                .as("a literal user with its password from a file is named")
                .contains("the login of user 'relay'");
    }

    @Test
    void aFailedTlsHandshakeSaysWhichTrustToCheck() {
        broker.pingFailure =
                new ExecutionException(new SslAuthenticationException("SSL handshake failed"));
        Properties connection = new Properties();
        connection.setProperty("security.protocol", "SSL");
        ConfigProblem p =
                single(BrokerPreflight.check(RELAY, broker, TIMEOUT, w -> {}, connection));
        assertThat(p.key()).isEqualTo("kafka.properties.security.protocol");
        assertThat(p.problem())
                .contains("TLS handshake with localhost:9092 failed", "SSL handshake failed");
        assertThat(p.fix()).contains("kafka.properties.ssl.truststore.location");
    }

    @Test
    void anAdminClientThatCannotEvenStartIsReportedAsUnreachable() {
        List<ConfigProblem> problems =
                BrokerPreflight.run(
                        RELAY,
                        new Properties(),
                        TIMEOUT,
                        (props, timeout) -> {
                            throw new KafkaException(
                                    "Failed to create new KafkaAdminClient",
                                    new ConfigException(
                                            "No resolvable bootstrap urls given in bootstrap.servers"));
                        });
        ConfigProblem p = single(problems);
        assertThat(p.problem())
                .startsWith("could not create a Kafka client")
                .contains("ConfigException: No resolvable bootstrap urls");
        assertThat(p.fix()).contains("kafka.properties.*");
    }

    @Test
    void missingTopicsAreNamedWithHowToCreateThem() {
        broker.topics = Set.of();
        List<ConfigProblem> problems = BrokerPreflight.check(RELAY, broker, TIMEOUT);
        assertThat(problems)
                .extracting(ConfigProblem::key)
                .containsExactly("source.topics", "sink.topic");
        assertThat(problems.get(0).problem())
                .isEqualTo("the input topic 'in' does not exist on localhost:9092.");
        assertThat(problems.get(1).fix()).contains("--create --topic out");
    }

    @Test
    void aTopicHiddenByAMissingDescribeAclIsNotAuthorizedNotMissing() {
        broker.topics = Set.of("out");
        broker.unauthorized = Set.of("in");
        ConfigProblem p = single(BrokerPreflight.check(RELAY, broker, TIMEOUT));
        assertThat(p.key()).isEqualTo("source.topics");
        assertThat(p.problem())
                .isEqualTo(
                        "not authorized to describe the input topic 'in' on localhost:9092"
                                + " (the broker does not say whether it exists).");
        assertThat(p.fix())
                .contains("--operation Describe --operation Read --topic in")
                .doesNotContain("--create");
    }

    @Test
    void brokerRefusingTheTransactionTimeoutIsCaughtBeforeSubmission() {
        broker.transactionMaxTimeoutMs = OptionalLong.of(300_000);
        ConfigProblem p = single(BrokerPreflight.check(RELAY, broker, TIMEOUT));
        assertThat(p.key()).isEqualTo("sink.transaction-timeout");
        assertThat(p.problem()).contains("900000 ms", "300000");
        assertThat(p.fix())
                .contains("lower sink.transaction-timeout", "raise transaction.max.timeout.ms");
    }

    @Test
    void brokerConfigIsNotReadWithoutExactlyOnce() {
        BrokerPreflight.Requirements atLeastOnce =
                new BrokerPreflight.Requirements(
                        "localhost:9092", List.of(), Optional.of("out"), Optional.empty());
        broker.transactionMaxTimeoutMs = OptionalLong.of(1);
        assertThat(BrokerPreflight.check(atLeastOnce, broker, TIMEOUT)).isEmpty();
        assertThat(broker.configReads).isZero();
    }

    @Test
    void deniedDescribeConfigsSkipsOnlyThatCheckWithAWarning() {
        broker.configFailure = new ExecutionException(new ClusterAuthorizationException("denied"));
        List<String> warnings = new ArrayList<>();
        assertThat(BrokerPreflight.check(RELAY, broker, TIMEOUT, warnings::add)).isEmpty();
        assertThat(warnings)
                .singleElement()
                .asString()
                .startsWith(
                        "not authorized to read the brokers' transaction.max.timeout.ms (DescribeConfigs on the cluster)")
                .contains("sink.transaction-timeout (15 min) against it is skipped");

        broker.topics = Set.of("out");
        assertThat(BrokerPreflight.check(RELAY, broker, TIMEOUT, warnings::add))
                .as("the other checks still run")
                .extracting(ConfigProblem::key)
                .containsExactly("source.topics");
    }

    @Test
    void aBrokerConfigReadFailingForAnotherReasonIsAProblem() {
        broker.configFailure = new ExecutionException(new KafkaException("broken"));
        ConfigProblem p = single(BrokerPreflight.check(RELAY, broker, TIMEOUT));
        assertThat(p.problem()).contains("transaction.max.timeout.ms");
        assertThat(p.fix()).contains("--preflight.skip");
    }

    @Test
    void jobChecksRunOnlyAfterTheCommonOnesPassed() {
        List<String> seen = new ArrayList<>();
        JobPreflight job =
                (config, view) -> {
                    seen.add("ran");
                    return List.of(
                            new ConfigProblem(
                                    "relay.same-partition",
                                    "true",
                                    null,
                                    "too few partitions",
                                    "add some"));
                };
        List<ConfigProblem> problems =
                BrokerPreflight.run(
                        RELAY,
                        new Properties(),
                        TIMEOUT,
                        (p, t) -> broker,
                        null,
                        List.of(job),
                        w -> {});
        assertThat(problems).extracting(ConfigProblem::key).containsExactly("relay.same-partition");

        broker.topics = Set.of();
        seen.clear();
        BrokerPreflight.run(
                RELAY, new Properties(), TIMEOUT, (p, t) -> broker, null, List.of(job), w -> {});
        assertThat(seen).isEmpty();
    }

    @Test
    void theViewIsClosedAfterTheChecks() {
        BrokerPreflight.run(RELAY, new Properties(), TIMEOUT, (props, timeout) -> broker);
        assertThat(broker.closed).isTrue();
    }

    private static ConfigProblem single(List<ConfigProblem> problems) {
        assertThat(problems).hasSize(1);
        return problems.get(0);
    }

    @Test
    void aYoungOpenTransactionOfTheJobsPrefixWarnsOfASecondCopy() {
        long now = System.currentTimeMillis();
        broker.ongoing.put("kfp.relay-job.default-0-41", now - 2_000);
        broker.ongoing.put("kfp.relay-job.eu-0-7", now - 1_000); // another instance: not ours
        Optional<String> warning =
                TransactionWarnings.secondCopyWarning(
                        "kfp.relay-job.default", Duration.ofSeconds(5), broker);
        assertThat(warning)
                .get()
                .asString()
                .startsWith(
                        "1 transaction of prefix kfp.relay-job.default began less than 30 s ago and is still open"
                                + " (kfp.relay-job.default-0-41): another copy of this job may be running.")
                .contains("job.instance-id", "crashed just now");
    }

    @Test
    void openTransactionsOlderThanThreeCheckpointsAreACrashedJobsAndNoWarning() {
        long now = System.currentTimeMillis();
        broker.ongoing.put("kfp.relay-job.default-0-41", now - 61_000);
        broker.ongoing.put("kfp.relay-job.default-1-41", -1L); // start unknown
        assertThat(
                        TransactionWarnings.secondCopyWarning(
                                "kfp.relay-job.default", Duration.ofSeconds(20), broker))
                .isEmpty();
        broker.ongoing.put("kfp.relay-job.default-0-42", now - 50_000);
        assertThat(
                        TransactionWarnings.secondCopyWarning(
                                "kfp.relay-job.default", Duration.ofSeconds(20), broker))
                .get()
                .asString()
                .contains("less than 1 min ago");
    }

    private static Configuration job(String... settings) {
        Configuration c = new Configuration();
        c.setString("job.name", "relay-job");
        for (int i = 0; i < settings.length; i += 2) {
            c.setString(settings[i], settings[i + 1]);
        }
        return c;
    }

    @Test
    void oldOpenTransactionsOfAnotherInstanceOrBeyondAPooledDownscaleAreNamedAsLingering() {
        long now = System.currentTimeMillis();
        broker.ongoing.put(
                "kfp.relay-job.old-0-12", now - 600_000); // an instance id no longer used
        broker.ongoing.put("kfp.relay-job.eu-0-7", now - 1_000); // a running instance: young
        broker.ongoing.put("kfp.relay-job.default-0-41", now - 600_000); // ours: this job aborts it
        broker.ongoing.put("kfp.relay-job.default-3-2", now - 600_000); // ours, subtask 3
        broker.ongoing.put("kfp.other-job.old-0-1", now - 600_000); // another job's name

        assertThat(TransactionWarnings.lingeringWarning(job(), broker))
                .get()
                .asString()
                .startsWith(
                        "1 transaction this job will not abort is still open: kfp.relay-job.old-0-12 (open 10 min).")
                .contains(
                        "read_committed readers", "forceTerminateTransaction --transactionalId ID");

        assertThat(
                        TransactionWarnings.lingeringWarning(
                                job("sink.transaction-naming", "pooling", "job.parallelism", "2"),
                                broker))
                .get()
                .asString()
                .startsWith("2 transactions this job will not abort are still open: ")
                .contains(
                        "kfp.relay-job.default-3-2 (open 10 min, of a sink subtask beyond parallelism 2)")
                .doesNotContain("default-0-41", "eu-0-7", "other-job");

        broker.ongoing.clear();
        broker.ongoing.put("kfp.relay-job.default-0-41", now - 600_000);
        assertThat(TransactionWarnings.lingeringWarning(job(), broker)).isEmpty();
    }
}
