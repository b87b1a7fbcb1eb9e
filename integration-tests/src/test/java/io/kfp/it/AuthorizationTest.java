package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.console.ConsoleSink;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.Workflow;
import io.kfp.common.preflight.RequiredAcls;
import io.kfp.common.testing.MiniClusters;
import io.kfp.ingest.IngestJob;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import io.kfp.testkit.EmbeddedJobs;
import io.kfp.testkit.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.testutils.junit.SharedObjectsExtension;
import org.apache.flink.testutils.junit.SharedReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay against a broker that encrypts (TLS, a CA made for the test), authenticates (SASL
 * SCRAM-SHA-512) and authorizes (StandardAuthorizer, nothing allowed without an ACL): with exactly
 * the ACLs the relay README lists it copies every record once; without Describe on its input topic,
 * preflight says "not authorized", not "does not exist"; its password may come from a file through
 * Kafka's config providers. Throughout, the passwords are searched for in everything logged (every
 * logger at INFO), in stderr and in the REST API's job config, cluster config, job and exception
 * history.
 */
class AuthorizationTest {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(3);

    /** Each test's failure plan, reachable from the job's functions in this JVM. */
    @RegisterExtension final SharedObjectsExtension shared = SharedObjectsExtension.create();

    static final String ADMIN_PASSWORD = "admin-s3cret";
    static final String RELAY_PASSWORD = "relay-s3cret";
    static EmbeddedKafka kafka;

    /**
     * Everything logged in this JVM while the class runs, every logger at INFO at least: searched
     * for the passwords.
     */
    static final StringWriter LOGGED = new StringWriter();

    static Map<String, Level> levelsBefore;

    @BeforeAll
    static void logEverythingToSearchForSecrets() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        org.apache.logging.log4j.core.config.Configuration config = context.getConfiguration();
        levelsBefore = new HashMap<>();
        config.getLoggers().forEach((name, logger) -> levelsBefore.put(name, logger.getLevel()));
        WriterAppender appender =
                WriterAppender.newBuilder()
                        .setName("secret-search")
                        .setTarget(LOGGED)
                        .setLayout(
                                PatternLayout.newBuilder().withPattern("%c %m%n%throwable").build())
                        .build();
        appender.start();
        config.addAppender(appender);
        config.getRootLogger().addAppender(appender, null, null);
        // The console keeps its usual WARN view: the INFO flood goes to the search only.
        config.getRootLogger().removeAppender("console");
        config.getRootLogger().addAppender(config.getAppender("console"), Level.WARN, null);
        Configurator.setAllLevels("", Level.INFO);
    }

    @AfterAll
    static void noPasswordWasLoggedAndLoggingIsRestored() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        org.apache.logging.log4j.core.config.Configuration config = context.getConfiguration();
        config.getRootLogger().removeAppender("secret-search");
        config.getRootLogger().removeAppender("console");
        config.getRootLogger().addAppender(config.getAppender("console"), null, null);
        Configurator.setLevel(levelsBefore);
        String logged = LOGGED.toString();
        assertThat(logged)
                .as("something was logged")
                .contains("Starting relay-job with this configuration");
        assertThat(logged)
                .as("logs")
                .doesNotContain(RELAY_PASSWORD, ADMIN_PASSWORD, "stranger-s3cret");
    }

    @BeforeAll
    static void startBroker() throws Exception {
        kafka =
                EmbeddedKafka.startWithUsers(
                        Path.of("target", "it-kafka"),
                        ADMIN_PASSWORD,
                        Map.of(
                                "relay",
                                RELAY_PASSWORD,
                                "stranger",
                                "stranger-s3cret",
                                "ingest",
                                "ingest-s3cret",
                                "sink",
                                "sink-s3cret"));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** The ACLs the relay README lists for a relay of prefix/group {@code id}. */
    static List<AclBinding> relayAcls(String user, String in, String out, String id) {
        List<AclBinding> acls = new ArrayList<>();
        acls.add(allow(user, ResourceType.TOPIC, in, PatternType.LITERAL, AclOperation.READ));
        acls.add(allow(user, ResourceType.TOPIC, in, PatternType.LITERAL, AclOperation.DESCRIBE));
        acls.add(allow(user, ResourceType.GROUP, id, PatternType.LITERAL, AclOperation.READ));
        acls.add(allow(user, ResourceType.TOPIC, out, PatternType.LITERAL, AclOperation.WRITE));
        acls.add(allow(user, ResourceType.TOPIC, out, PatternType.LITERAL, AclOperation.DESCRIBE));
        acls.add(
                allow(
                        user,
                        ResourceType.TOPIC,
                        out,
                        PatternType.LITERAL,
                        AclOperation.DESCRIBE_CONFIGS));
        acls.add(
                allow(
                        user,
                        ResourceType.TRANSACTIONAL_ID,
                        id,
                        PatternType.PREFIXED,
                        AclOperation.WRITE));
        acls.add(
                allow(
                        user,
                        ResourceType.TRANSACTIONAL_ID,
                        id,
                        PatternType.PREFIXED,
                        AclOperation.DESCRIBE));
        // The leases that let a second copy be refused at its start.
        acls.add(
                allow(
                        user,
                        ResourceType.GROUP,
                        "kfp-lease.group." + id,
                        PatternType.LITERAL,
                        AclOperation.READ));
        acls.add(
                allow(
                        user,
                        ResourceType.GROUP,
                        "kfp-lease.transactional-id." + id,
                        PatternType.PREFIXED,
                        AclOperation.READ));
        return acls;
    }

    static AclBinding allow(
            String user, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    static List<String> relayArgs(String name, String user, String password, String... extra) {
        List<String> args =
                clientArgs(
                        name,
                        user,
                        password,
                        "--source.topics",
                        name + "-in",
                        "--sink.topic",
                        name + "-out");
        args.addAll(List.of(extra));
        return args;
    }

    @Test
    void withTheReadmesAclsTheRelayCopiesEveryRecordOnce(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        String name = "az";
        kafka.createTopics(2, name + "-in", name + "-out");
        // What the relay computes for itself (--preflight.print-acls, kfp acls) is the README's
        // list; granted, and no more.
        List<AclBinding> computed =
                RequiredAcls.of(
                        RelayJob.SPEC.configuration(
                                relayArgs(name, "relay", RELAY_PASSWORD).toArray(String[]::new)),
                        RelayJob.SPEC.groups(),
                        List.of(),
                        "User:relay");
        assertThat(computed)
                .containsExactlyInAnyOrderElementsOf(
                        relayAcls("relay", name + "-in", name + "-out", "kfp.relay-job." + name));
        try (Admin admin = kafka.admin()) {
            admin.createAcls(computed).all().get(30, TimeUnit.SECONDS);
        }
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        admin(), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 200; i++) {
                sent.add(String.valueOf(i));
                producer.send(
                        new ProducerRecord<>(
                                name + "-in",
                                i % 2,
                                null,
                                String.valueOf(i).getBytes(StandardCharsets.UTF_8)));
            }
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        RelayJob.SPEC,
                        relayArgs(name, "relay", RELAY_PASSWORD).toArray(String[]::new),
                        System.out,
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(s.exitCode()).as("submitted; stderr: %s", err).isZero();
        JobClient job = s.client();
        CommonTestUtils.waitUtil(
                () -> committedOutput(name + "-out").size() >= sent.size(),
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "every record relayed");
        for (String path :
                List.of(
                        "/jobs/" + job.getJobID() + "/config",
                        "/jobmanager/config",
                        "/jobs/" + job.getJobID() + "/exceptions",
                        "/jobs/" + job.getJobID())) {
            assertThat(get(cluster.getWebInterfaceURL() + path))
                    .as("REST " + path)
                    .isNotEmpty()
                    .doesNotContain(RELAY_PASSWORD);
        }
        job.cancel().get(1, TimeUnit.MINUTES);
        assertThat(committedOutput(name + "-out")).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .as("the one check its user may not run is skipped, and said so")
                .contains("not authorized to read the brokers' transaction.max.timeout.ms")
                .contains("the check of sink.transaction-timeout (15 min) against it is skipped")
                .doesNotContain(RELAY_PASSWORD);
    }

    @Test
    void theRelaysPasswordCanComeFromAFileThroughKafkasConfigProvider() throws Exception {
        String name = "az-file";
        kafka.createTopics(1, name + "-in", name + "-out");
        try (Admin admin = kafka.admin()) {
            admin.createAcls(
                            relayAcls(
                                    "relay", name + "-in", name + "-out", "kfp.relay-job." + name))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        admin(), new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(
                            new ProducerRecord<>(
                                    name + "-in", "from-file".getBytes(StandardCharsets.UTF_8)))
                    .get();
        }
        // What the README recommends: the secret in a file outside git, the job config naming it.
        Path secrets =
                Files.createDirectories(Path.of("target", "it-secrets"))
                        .resolve("relay.properties");
        Properties file = new Properties();
        file.setProperty(
                "jaas", kafka.clientOf("relay", RELAY_PASSWORD).getProperty("sasl.jaas.config"));
        file.setProperty(
                "truststore", kafka.clientOf("relay", "").getProperty("ssl.truststore.password"));
        try (var out = Files.newBufferedWriter(secrets)) {
            file.store(out, null);
        }
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--source.topics",
                                name + "-in",
                                "--sink.topic",
                                name + "-out",
                                "--job.instance-id",
                                name,
                                "--job.parallelism",
                                "1",
                                "--checkpoint.interval",
                                "1 s",
                                "--checkpoint.dir",
                                "target/it-checkpoints/" + name,
                                "--kafka.properties.security.protocol",
                                "SASL_SSL",
                                "--kafka.properties.sasl.mechanism",
                                "SCRAM-SHA-512",
                                "--kafka.properties.ssl.truststore.location",
                                kafka.clientOf("relay", "").getProperty("ssl.truststore.location"),
                                "--kafka.properties.ssl.truststore.type",
                                "PKCS12",
                                "--kafka.properties.ssl.truststore.password",
                                "${file:" + secrets.toAbsolutePath() + ":truststore}",
                                "--kafka.properties.config.providers",
                                "file",
                                "--kafka.properties.config.providers.file.class",
                                FileConfigProvider.class.getName(),
                                "--kafka.properties.sasl.jaas.config",
                                "${file:" + secrets.toAbsolutePath() + ":jaas}"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        RelayJob.SPEC,
                        args.toArray(String[]::new),
                        System.out,
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(s.exitCode())
                .as("preflight's admin client authenticated; stderr: %s", err)
                .isZero();
        CommonTestUtils.waitUtil(
                () -> committedOutput(name + "-out").contains("from-file"),
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "the record relayed by the source and sink authenticated from the file");
        s.client().cancel().get(1, TimeUnit.MINUTES);
        assertThat(args).noneMatch(a -> a.contains(RELAY_PASSWORD));
    }

    @Test
    void withoutDescribeOnItsInputTopicPreflightSaysNotAuthorized() throws Exception {
        String name = "az-hidden";
        kafka.createTopics(1, name + "-in", name + "-out");
        assertThat(refusedBeforeSubmitting(relayArgs(name, "stranger", "stranger-s3cret")))
                .contains("not authorized to describe the input topic '" + name + "-in'")
                .contains("--operation Describe --operation Read --topic " + name + "-in")
                .doesNotContain("does not exist")
                .doesNotContain("stranger-s3cret");
    }

    @Test
    void withDescribeAlonePreflightNamesEveryRightStillMissing() throws Exception {
        String name = "az-describe-only";
        kafka.createTopics(1, name + "-in", name + "-out");
        try (Admin admin = Admin.create(admin())) {
            List<AclBinding> describeOnly = new ArrayList<>();
            for (String topic : List.of(name + "-in", name + "-out")) {
                describeOnly.add(
                        new AclBinding(
                                new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                                new AccessControlEntry(
                                        "User:stranger",
                                        "*",
                                        AclOperation.DESCRIBE,
                                        AclPermissionType.ALLOW)));
            }
            admin.createAcls(describeOnly).all().get(30, TimeUnit.SECONDS);
        }
        // Each would otherwise fail the job on the cluster after it was submitted, restart after
        // restart.
        assertThat(refusedBeforeSubmitting(relayArgs(name, "stranger", "stranger-s3cret")))
                .contains(
                        "not authorized to read the input topic '" + name + "-in'",
                        "--operation Read --topic " + name + "-in")
                .contains("not authorized to write the output topic '" + name + "-out'")
                .contains("not authorized to use the consumer group 'kfp.relay-job." + name + "'")
                .contains(
                        "not authorized to use transactional ids starting with 'kfp.relay-job."
                                + name
                                + "'")
                .doesNotContain("stranger-s3cret");
    }

    @Test
    void aWrongPasswordIsRefusedBeforeSubmittingNamingUserMechanismAndServers() throws Exception {
        assertThat(refusedBeforeSubmitting(relayArgs("az-wrong", "relay", "not-the-s3cret")))
                .contains("refused the login of user 'relay' with SCRAM-SHA-512 over SASL_SSL")
                .contains(kafka.bootstrapServers())
                .doesNotContain("not-the-s3cret")
                .doesNotContain(RELAY_PASSWORD);
    }

    @Test
    void theThreeJobsRunWithTheAclsTheyComputeExactlyOnceThroughInjectedFailures()
            throws Exception {
        String name = "az-all";
        kafka.createTopics(2, name + "-a", name + "-b");
        int n = 20_000;
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lines.add("line " + i);
        }
        synchronized (PipelineTest.PRINTED) {
            PipelineTest.PRINTED.reset();
        }
        SharedReference<FailureInjector.Plan> planReference =
                shared.add(new FailureInjector.Plan());
        FailureInjector.Plan plan = planReference.get();
        List<JobClient> jobs = new ArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            serveSlowly(server, lines);
            List<String> ingest =
                    clientArgs(
                            name,
                            "ingest",
                            "ingest-s3cret",
                            "--sink.topic",
                            name + "-a",
                            "--socket.endpoints",
                            "127.0.0.1:" + server.getLocalPort(),
                            "--socket.bounded",
                            "true");
            List<String> relay =
                    clientArgs(
                            name,
                            "relay",
                            RELAY_PASSWORD,
                            "--source.topics",
                            name + "-a",
                            "--sink.topic",
                            name + "-b");
            List<String> sink =
                    clientArgs(
                            name,
                            "sink",
                            "sink-s3cret",
                            "--source.topics",
                            name + "-b",
                            "--source.offset-reset",
                            "earliest");
            grant(IngestJob.SPEC, ingest, "User:ingest");
            grant(RelayJob.SPEC, relay, "User:relay");
            grant(SinkJob.SPEC, sink, "User:sink");
            jobs.add(
                    submitted(
                            SinkJob.SPEC,
                            c ->
                                    SinkJob.fromConfig(
                                            c,
                                            new ConsoleSink(
                                                    PipelineTest::printed, Duration.ofMillis(100))),
                            sink));
            // The relay fails twice (a record after its first checkpoint, then a checkpoint after
            // it recovered).
            jobs.add(
                    submitted(
                            RelayJob.SPEC,
                            c ->
                                    RelayJob.fromConfig(c)
                                            .withStageAfterSource(
                                                    st ->
                                                            st.map(
                                                                            new FailureInjector(
                                                                                    planReference,
                                                                                    5))
                                                                    .uid("failure-injector")
                                                                    .name("failure-injector")),
                            relay));
            jobs.add(submitted(IngestJob.SPEC, IngestJob.SPEC::workflow, ingest));
            CommonTestUtils.waitUtil(
                    () -> plan.failuresInjected() == 2 && PipelineTest.printedLines().size() >= n,
                    Duration.ofMinutes(3),
                    Duration.ofMillis(100),
                    "both failures injected and every line printed");
            assertThat(PipelineTest.printedLines())
                    .as("committed lines out, each once")
                    .containsExactlyInAnyOrderElementsOf(lines);
        } finally {
            plan.enabled = false;
            for (JobClient job : jobs) {
                if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                    job.cancel().get(1, TimeUnit.MINUTES);
                }
            }
        }
    }

    /**
     * The ingest job's connection gets {@code lines} over a few seconds, so checkpoints complete
     * while they flow.
     */
    private static void serveSlowly(ServerSocket server, List<String> lines) {
        Thread t =
                new Thread(
                        () -> {
                            try (Socket socket = server.accept();
                                    OutputStream out = socket.getOutputStream()) {
                                for (int from = 0; from < lines.size(); from += 500) {
                                    StringBuilder chunk = new StringBuilder();
                                    lines.subList(from, Math.min(lines.size(), from + 500))
                                            .forEach(l -> chunk.append(l).append('\n'));
                                    out.write(chunk.toString().getBytes(StandardCharsets.UTF_8));
                                    out.flush();
                                    Thread.sleep(100);
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        "az-line-server");
        t.setDaemon(true);
        t.start();
    }

    private static JobClient submitted(
            JobSpec spec, Function<Configuration, ? extends Workflow> workflow, List<String> args) {
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        spec, workflow, args.toArray(String[]::new), System.out, System.err);
        assertThat(s.exitCode()).as(spec.command() + " submitted").isZero();
        return s.client();
    }

    /**
     * A job's arguments on this broker as {@code user}: parallelism 1, its own instance id and
     * checkpoints.
     */
    static List<String> clientArgs(String name, String user, String password, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--job.instance-id",
                                name,
                                "--job.parallelism",
                                "1",
                                "--checkpoint.interval",
                                "1 s",
                                "--checkpoint.dir",
                                "target/it-checkpoints/" + name + "-" + user));
        kafka.clientOf(user, password)
                .forEach((k, v) -> args.addAll(List.of("--kafka.properties." + k, (String) v)));
        args.addAll(List.of(extra));
        return args;
    }

    /** Grants {@code principal} exactly what the job computes for itself from {@code args}. */
    static void grant(JobSpec spec, List<String> args, String principal) throws Exception {
        ReadableConfig config = spec.configuration(args.toArray(String[]::new));
        try (Admin admin = kafka.admin()) {
            admin.createAcls(
                            RequiredAcls.of(
                                    config,
                                    spec.groups(),
                                    spec.extraOutputTopics().apply(config),
                                    principal))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Submits the relay with {@code args}, expects exit code 2 (refused before submitting) and
     * returns its stderr.
     */
    static String refusedBeforeSubmitting(List<String> args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        RelayJob.SPEC,
                        args.toArray(String[]::new),
                        System.out,
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(s.exitCode()).as(stderr).isEqualTo(2);
        return stderr;
    }

    static String get(String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        return http.send(
                        HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    static Properties admin() {
        Properties props = kafka.clientOf(EmbeddedKafka.ADMIN, ADMIN_PASSWORD);
        props.setProperty("bootstrap.servers", kafka.bootstrapServers());
        props.setProperty("acks", "all");
        return props;
    }

    static List<String> committedOutput(String topic) {
        Properties props = admin();
        props.setProperty("isolation.level", "read_committed");
        props.setProperty("auto.offset.reset", "earliest");
        props.setProperty("enable.auto.commit", "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }
}
