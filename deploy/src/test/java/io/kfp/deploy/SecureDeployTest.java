package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.JobCatalog;
import io.kfp.deploy.kafka.KafkaSecurity;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kfp's secure broker, as an operator uses it: {@code kfp kafka start --secure} (SASL_SSL, SCRAM
 * users, the StandardAuthorizer), the cluster, the topics; a job without its ACLs refused before it
 * reaches the cluster, naming the ACL; {@code kfp acls JOB --grant} for each job; then lines
 * through ingest, relay and sink, each job logged in as its own user with exactly those ACLs. No
 * password is on any command line, in any log, conf or REST answer. One TaskManager, every job at
 * parallelism 1: the point is who may do what, not failover (DeployEndToEndTest).
 */
class SecureDeployTest {

    static final List<String> ONE_SLOT_EACH =
            List.of("--job.parallelism", "1", "--checkpoint.interval", "1 s");
    static OneHostKfp kfp;

    @BeforeAll
    static void startSecureKafkaAndCluster() throws Exception {
        kfp = new OneHostKfp("secure-run", Map.of("KFP_TASKMANAGERS", "1"));
        assertThat(kfp.kfp("kafka", "start", "--secure"))
                .contains("SASL_SSL", "kfp acls JOB --grant");
        kfp.kfp("cluster", "start");
        kfp.kfp("topics", "create");
    }

    @AfterAll
    static void stopEverything() {
        kfp.stop();
    }

    @Test
    void everyJobRunsAsItsOwnUserWithExactlyTheAclsKfpGrants() throws Exception {
        // 1. Before its ACLs: refused by the job's own preflight, naming what to grant.
        Commands.Result refused = kfp.tryKfp(submit("relay"));
        assertThat(refused.exit()).as(refused.output()).isEqualTo(2);
        assertThat(refused.output())
                .contains(
                        "not authorized to describe the input topic 'lines'",
                        "logs in as User:relay, and 'kfp acls relay --grant'");

        // 2. Granted by kfp, with Kafka's own kafka-acls.sh, from the lines kfp acls prints.
        for (String job : List.of("relay", "sink", "ingest")) {
            assertThat(kfp.kfp("acls", job, "--grant"))
                    .contains("granted: --allow-principal User:" + job);
        }

        try (ServerSocket lineServer = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            assertThat(OneHostKfp.lastLine(kfp.kfp(submit("relay")))).matches("[0-9a-f]{32}");
            assertThat(OneHostKfp.lastLine(kfp.kfp(submit("sink")))).matches("[0-9a-f]{32}");
            assertThat(
                            OneHostKfp.lastLine(
                                    kfp.kfp(
                                            submit(
                                                    "ingest",
                                                    "--socket.endpoints",
                                                    "127.0.0.1:" + lineServer.getLocalPort()))))
                    .matches("[0-9a-f]{32}");
            List<String> lines = new ArrayList<>();
            try (Socket ingest = lineServer.accept();
                    OutputStream out = ingest.getOutputStream()) {
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < 200; i++) {
                    lines.add("secure-" + i);
                    text.append("secure-").append(i).append('\n');
                }
                out.write(text.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                CommonTestUtils.waitUtil(
                        () -> kfp.printed("secure-").size() >= lines.size(),
                        Duration.ofMinutes(2),
                        Duration.ofMillis(100),
                        "the sink to print every line");
            }
            // 3. Through all three jobs, each under its own user: once each.
            assertThat(kfp.printed("secure-")).containsExactlyInAnyOrderElementsOf(lines);
            assertThat(OneHostKfp.values("relayed", admin(), true))
                    .containsExactlyInAnyOrderElementsOf(lines);
        }

        // 4. The ACLs are enforced: ingest's user may not read what the relay wrote; no login, no
        // answer.
        Properties ingestUser = new KafkaSecurity(kfp.run).clientSettings("ingest");
        ingestUser.putAll(kfp.client());
        assertThatThrownBy(() -> OneHostKfp.values("relayed", ingestUser, true))
                .isInstanceOf(TopicAuthorizationException.class);
        Properties anonymous = kfp.client();
        anonymous.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        anonymous.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        try (Admin admin = Admin.create(anonymous)) {
            assertThatThrownBy(() -> admin.listTopics().names().get(10, TimeUnit.SECONDS))
                    .as("a PLAINTEXT client without a login")
                    .isInstanceOfAny(ExecutionException.class, TimeoutException.class);
        }

        // 5. No password anywhere: command lines of every process, logs, conf, kfp status, REST.
        assertNoPasswordAnywhere();
    }

    private static void assertNoPasswordAnywhere() throws Exception {
        Path security = kfp.run.resolve("kafka-security");
        List<String> passwords = new ArrayList<>();
        // kfp formats the broker with a user per job module of the pom, built or not.
        List<String> users =
                KafkaSecurity.users(JobCatalog.jobNames(Path.of("").toAbsolutePath().getParent()));
        for (String user : users) {
            String jaas = Files.readString(security.resolve("users").resolve(user + ".properties"));
            passwords.add(jaas.replaceFirst("(?s).*password=\"([^\"]+)\".*", "$1"));
        }
        passwords.add(
                Files.readString(security.resolve("broker.secret"))
                        .replaceFirst("(?s).*password=(\\S+).*", "$1"));
        assertThat(passwords)
                .hasSize(users.size() + 1)
                .allMatch(p -> p.length() >= 30, "a generated password");

        Map<String, String> places = new LinkedHashMap<>();
        try (Stream<ProcessHandle> processes = ProcessHandle.allProcesses()) {
            for (ProcessHandle process : processes.toList()) {
                try {
                    places.put(
                            "command line of pid " + process.pid(),
                            Files.readString(
                                    Path.of("/proc", String.valueOf(process.pid()), "cmdline"),
                                    StandardCharsets.ISO_8859_1));
                } catch (IOException gone) {
                    // Ended meanwhile.
                }
            }
        }
        for (Path dir :
                List.of(
                        kfp.run.resolve("log"),
                        kfp.run.resolve("flink-conf"),
                        kfp.run.resolve("kafka"))) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    places.put(
                            kfp.run.relativize(f).toString(),
                            Files.readString(f, StandardCharsets.ISO_8859_1));
                }
            }
        }
        places.put("kfp status", kfp.kfp("status"));
        try (FlinkRest client = kfp.flinkRest()) {
            String relay = client.runningJob("relay-job").toHexString();
            for (String path :
                    List.of(
                            "/jobs/" + relay + "/config",
                            "/jobs/" + relay + "/exceptions",
                            "/jobmanager/config")) {
                places.put("REST " + path, kfp.get(kfp.restUrl() + path));
            }
        }
        assertThat(places.get("REST /jobmanager/config"))
                .as("the REST API answered")
                .contains("jobmanager.rpc.port");
        assertThat(places.keySet())
                .as("the broker's format and server logs were searched")
                .contains("log/kafka/format.log")
                .anyMatch(p -> p.startsWith("log/kafka/server"));
        assertThat(
                        places.entrySet().stream()
                                .filter(e -> passwords.stream().anyMatch(e.getValue()::contains))
                                .map(Map.Entry::getKey)
                                .toList())
                .as("places that show a password")
                .isEmpty();
    }

    /** kfp's admin user, from the settings file it wrote for Kafka's tools. */
    private static Properties admin() throws IOException {
        Properties props = new Properties();
        try (var reader =
                Files.newBufferedReader(
                        kfp.run.resolve("kafka-security").resolve("admin.properties"))) {
            props.load(reader);
        }
        props.putAll(kfp.client());
        return props;
    }

    private static String[] submit(String job, String... extra) {
        List<String> args = new ArrayList<>(List.of("submit", job));
        args.addAll(ONE_SLOT_EACH);
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }
}
