package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kfp.common.kafka.TlsCertificates;
import io.kfp.deploy.cluster.FlinkRest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's path, for real: deploy/bin/kfp (the kfp CLI) starts a Kafka broker and a
 * standalone Flink cluster (separate JVMs), submits the three job jars through Flink's CLI, lines
 * go in by TCP and come out of the sink's TaskManager stdout; then, with the relay busy, a
 * TaskManager running it is killed with -9, the relay is stopped with a savepoint and resumed, and
 * the output topic is checked record by record. Everything started is stopped by PID afterwards,
 * also on failure.
 */
public class DeployEndToEndTest {

    static OneHostKfp host;
    static final int LINES = 1_000;
    static final int RECORDS = 200_000;

    /** One kill here, to keep the build short: the lab's fault matrix kills a TaskManager too. */
    static final int KILLS = 1;

    static final String SECRET = "e2e-key-s3cret-41f7";

    @BeforeAll
    static void startKafkaAndCluster() throws Exception {
        host = new OneHostKfp("e2e-run", Map.of());
        kfp("kafka", "start");
        kfp("cluster", "start");
        kfp("topics", "create");
    }

    @Test
    void theJobManagerServesPrometheusMetricsOnLoopback() throws Exception {
        String first = host.env.get("KFP_PROM_PORTS").split("-")[0];
        assertThat(host.get("http://127.0.0.1:" + first + "/metrics"))
                .contains("flink_jobmanager_");
    }

    /** KFP_JVM_OPTIONS reach the command line of the broker and of every Flink process. */
    @Test
    void theBrokerAndTheClustersJvmsRunWithKfpJvmOptions() throws Exception {
        List<Path> pids;
        try (Stream<Path> files = Files.list(host.run.resolve("pid"))) {
            pids =
                    files.filter(
                                    p ->
                                            p.getFileName()
                                                    .toString()
                                                    .matches(
                                                            "(kafka|jobmanager|taskmanager-\\d+)\\.pid"))
                            .sorted()
                            .toList();
        }
        assertThat(pids.stream().map(p -> p.getFileName().toString()))
                .contains("kafka.pid", "jobmanager.pid", "taskmanager-1.pid");
        for (Path pid : pids) {
            String commandLine =
                    Files.readString(Path.of("/proc", Files.readString(pid).trim(), "cmdline"))
                            .replace('\0', ' ');
            assertThat(commandLine).as(pid.toString()).contains(" " + OneHostKfp.JVM_OPTIONS + " ");
        }
    }

    /**
     * Every local user reaches 127.0.0.1, and Flink's {@code POST /jobs} takes a job graph with its
     * jars whatever {@code web.submit.enable} says: the one-host REST API answers only a client
     * that shows the cluster's certificate. Flink's own RestClusterClient without it, and any
     * client with a key of its own, cannot submit; kfp's configuration submits the same job graph,
     * which runs.
     */
    @Test
    void onlyAHolderOfTheClustersKeySubmitsAJob() throws Exception {
        String rest = host.restUrl();
        JobGraph probe = finiteJob("kfp-e2e-submit-probe");

        Configuration plain = new Configuration();
        plain.set(RestOptions.ADDRESS, "127.0.0.1");
        plain.set(RestOptions.PORT, Integer.parseInt(host.env.get("KFP_REST_PORT")));
        plain.set(RestOptions.RETRY_MAX_ATTEMPTS, 0);
        try (RestClusterClient<StandaloneClusterId> anyone =
                new RestClusterClient<>(plain, StandaloneClusterId.getInstance())) {
            Assertions.assertThatThrownBy(() -> anyone.submitJob(probe).get(1, TimeUnit.MINUTES))
                    .as("a plain RestClusterClient on " + rest)
                    .isInstanceOf(ExecutionException.class);
        }

        Path foreign = host.run.resolve("foreign-key");
        TlsCertificates own =
                TlsCertificates.create(foreign, "CN=someone", List.of("127.0.0.1"), 1);
        Files.writeString(foreign.resolve("password"), own.password());
        for (HttpClient client :
                List.of(
                        RestProbe.client(null, null),
                        RestProbe.client(
                                foreign.resolve("keystore.p12"), foreign.resolve("password")))) {
            for (String url : List.of(rest, rest.replace("https://", "http://"))) {
                Assertions.assertThatThrownBy(
                                () ->
                                        client.send(
                                                HttpRequest.newBuilder(URI.create(url + "/jobs"))
                                                        .POST(HttpRequest.BodyPublishers.noBody())
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString()))
                        .as("POST %s/jobs by a client without the cluster's key", url)
                        .isInstanceOf(IOException.class);
            }
        }

        try (RestClusterClient<StandaloneClusterId> kfp =
                new RestClusterClient<>(host.clientConf(), StandaloneClusterId.getInstance())) {
            JobID id = kfp.submitJob(probe).get(1, TimeUnit.MINUTES);
            CommonTestUtils.waitUtil(
                    () -> kfp.getJobStatus(id).join() == JobStatus.FINISHED,
                    Duration.ofMinutes(1),
                    "the probe job submitted with the cluster's key did not finish");
        }
        assertThat(
                        host.http()
                                .send(
                                        HttpRequest.newBuilder(URI.create(rest + "/jars")).build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode())
                .as("web.submit.enable: false")
                .isEqualTo(404);
    }

    /** A job graph made of Flink's own classes that reads three numbers and ends. */
    private static JobGraph finiteJob(String name) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.fromSequence(1, 3).sinkTo(new DiscardingSink<>());
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(name);
        return graph.getJobGraph();
    }

    /**
     * A transaction left open - by a producer that began one and went quiet, as a crashed job's
     * does - holds back its partition's last stable offset: kfp transactions lists it with the
     * partition, abort ends it (the partition is readable with read_committed again) and fences its
     * producer, and afterwards nothing of the prefix is open.
     */
    @Test
    void kfpListsALingeringTransactionAndAbortsItFencingItsProducer() throws Exception {
        String topic = "e2e-lingering";
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        Properties props = host.client();
        props.setProperty("transactional.id", topic + "-0");
        try (KafkaProducer<byte[], byte[]> quiet =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            quiet.initTransactions();
            quiet.beginTransaction();
            quiet.send(new ProducerRecord<>(topic, "held back".getBytes(StandardCharsets.UTF_8)))
                    .get(30, TimeUnit.SECONDS);
            assertThat(lastStableOffset(partition))
                    .as("the last stable offset while the transaction is open")
                    .isZero();

            String listed = host.kfp("transactions", "list", "--prefix", topic);
            assertThat(listed).contains(topic + "-0", "Ongoing", partition.toString());
            String aborted = host.kfp("transactions", "abort", "--prefix", topic);
            assertThat(aborted)
                    .contains("aborted " + topic + "-0", partition + " no longer held back");
            // The abort marker follows the record: the last stable offset passes both.
            CommonTestUtils.waitUtil(
                    () -> lastStableOffset(partition) == 2,
                    Duration.ofSeconds(30),
                    Duration.ofMillis(100),
                    "the partition readable with read_committed again");
            assertThat(host.kfp("transactions", "list", "--prefix", topic))
                    .contains("no open transaction of prefix " + topic);
            assertThat(host.kfp("transactions", "abort", "--prefix", topic))
                    .contains("nothing to abort");
            Assertions.assertThatThrownBy(quiet::commitTransaction)
                    .as("the fenced producer's commit")
                    .isInstanceOf(ProducerFencedException.class);
        }
    }

    /**
     * dedup, a job made with kfp new-job, goes through kfp as ours do: listed with its owner and
     * topics, submitted, watched, stopped with a savepoint and resumed with its state - the ids it
     * saw before the stop are dropped after the resume - then upgraded, and rolled back from a new
     * version that cannot run, its state intact across both; then the JobManager crashes and kfp
     * resume brings the job back from its newest retained checkpoint.
     */
    @Test
    void aTeamsJobIsListedSubmittedStoppedAndResumedLikeOurs() throws Exception {
        String in = "e2e-dedup-in";
        String out = "e2e-dedup-out";
        try (Admin admin = admin()) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(in, 4, (short) 1),
                                    new NewTopic(out, 4, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        assertThat(host.kfp("jobs"))
                .containsPattern(
                        "(?m)^dedup +@kfp/platform +relayed +deduped +exactly-once"
                                + " +kfp.dedup-job.default +kfp.dedup-job.default-\\*$");
        List<String> topics =
                List.of("--source.topics", in, "--sink.topic", out, "--job.instance-id", "e2e");
        // Checkpoints every second, not dedup's 5 s, up to the JobManager's crash: each step
        // waits for some.
        List<String> options = new ArrayList<>(topics);
        options.addAll(List.of("--checkpoint.interval", "1 s"));
        submit("dedup", options);
        produceIds(in, 0, 100);
        produceIds(in, 0, 100);
        awaitCommitted(out, 100);
        assertThat(host.kfp("status", "dedup")).contains("dedup-job: RUNNING");

        String savepoint = kfp("stop", "dedup");
        produceIds(in, 0, 110);
        List<String> resume = new ArrayList<>(List.of("resume", "dedup", "--from", savepoint));
        resume.addAll(options);
        assertThat(kfp(resume.toArray(String[]::new)).trim()).matches("[0-9a-f]{32}");
        awaitCommitted(out, 110);
        // Two more checkpoints: a repeat let through late would show.
        Thread.sleep(3_000);
        List<String> written = OneHostKfp.values(out, host.client(), true);
        assertThat(written).hasSize(110).doesNotHaveDuplicates();

        // An upgrade: the state checked against the new jar, a savepoint, the new version from it.
        List<String> upgrade = new ArrayList<>(List.of("upgrade", "dedup"));
        upgrade.addAll(options);
        String upgraded = host.kfp(upgrade.toArray(String[]::new));
        assertThat(upgraded)
                .contains(
                        "restores into dedup-job: every operator state",
                        "stopping dedup with a savepoint",
                        "3 checkpoints completed without a restart");
        produceIds(in, 0, 120);
        awaitCommitted(out, 120);

        // A new version that cannot run (its checkpoint directory cannot be made): rolled back to
        // the version that ran, from the same savepoint, and kfp exits 1 saying so.
        List<String> broken = new ArrayList<>(upgrade);
        broken.addAll(List.of("--checkpoint.dir", "/proc/kfp-upgrade-test"));
        Commands.Result rolledBack = host.tryKfp(broken.toArray(String[]::new));
        assertThat(rolledBack.exit()).as(rolledBack.output()).isEqualTo(1);
        assertThat(rolledBack.output())
                .contains(
                        "ROLLING BACK: dedup",
                        "upgrade of dedup rolled back:",
                        " runs again (job ");
        assertThat(host.kfp("status", "dedup")).contains("dedup-job: RUNNING");
        produceIds(in, 0, 130);
        awaitCommitted(out, 130);
        Thread.sleep(3_000);
        assertThat(OneHostKfp.values(out, host.client(), true))
                .as("each id once across the stop, the upgrade and the rollback")
                .hasSize(130)
                .doesNotHaveDuplicates();
        // The savepoints of the stop and of both upgrades, newest first, each with why.
        String history = host.kfp("savepoints", "dedup");
        assertThat(history)
                .containsPattern("(?m)^savepoint .* stop +\\S+ +" + Pattern.quote(savepoint) + "$")
                .containsPattern("(?s)upgrade.*upgrade.*stop")
                .contains("checkpoint ");

        // The one-host JobManager crashes, and the job is gone with it; kfp cluster start brings
        // the JobManager back (README: "The JobManager crashes").
        long jobManager =
                Long.parseLong(
                        Files.readString(host.run.resolve("pid").resolve("jobmanager.pid")).trim());
        new ProcessBuilder("kill", "-9", String.valueOf(jobManager)).inheritIO().start().waitFor();
        ProcessHandle.of(jobManager).ifPresent(p -> p.onExit().join());
        kfp("cluster", "start");

        // A job with state never starts empty by accident: submit refuses, naming the latest;
        // resume without --from takes the latest safe one, the crashed job's last checkpoint.
        List<String> again = new ArrayList<>(List.of("submit", "dedup"));
        again.addAll(options);
        Commands.Result refused = host.tryKfp(again.toArray(String[]::new));
        assertThat(refused.exit()).as(refused.output()).isEqualTo(2);
        assertThat(refused.output())
                .contains("dedup has state: ", "'kfp resume dedup'", "'kfp submit dedup --fresh'");
        // Resumed at dedup's own 5 s, the interval the checkpoint alert below is tested at: 3
        // intervals of 1 s are less than Prometheus' scrape interval (5 s), which a healthy job's
        // alert could fire for.
        List<String> latest = new ArrayList<>(List.of("resume", "dedup"));
        latest.addAll(topics);
        Commands.Result resumed = host.tryKfp(latest.toArray(String[]::new));
        assertThat(resumed.exit()).as(resumed.output()).isZero();
        assertThat(resumed.output())
                .containsPattern("resuming dedup from \\S+/chk-\\d+ \\(checkpoint, periodic, ");
        produceIds(in, 0, 140);
        awaitCommitted(out, 140);
        Thread.sleep(11_000); // two more checkpoints
        assertThat(OneHostKfp.values(out, host.client(), true))
                .as(
                        "each id once across a JobManager crash and a resume from the latest checkpoint")
                .hasSize(140)
                .doesNotHaveDuplicates();

        // Retention: the newest two kept (the running job's own checkpoint among them), the
        // savepoints of the stop and the upgrades deleted from the disk.
        List<String> retain = new ArrayList<>(List.of("savepoints", "dedup", "--keep", "2"));
        retain.addAll(topics);
        String retained = host.kfp(retain.toArray(String[]::new));
        assertThat(retained).contains("deleting " + savepoint + " (savepoint, stop, ");
        assertThat(retained.substring(retained.indexOf("KIND"))).doesNotContain("savepoint ");
        assertThat(Path.of(java.net.URI.create(savepoint))).doesNotExist();

        checkpointsStallingFireAnAlertThatReachesAWebhookAndResolves("dedup-job");
        kfp("cancel", "dedup");
    }

    /**
     * With {@code flinkJob} running: kfp monitoring (Prometheus, Alertmanager) on this cluster, the
     * job's checkpoint directory made unwritable ({@code chattr +i}: immutable, which stops root
     * too, where a chmod would not), and KfpCheckpointsStalled reaches a webhook through
     * Alertmanager; the directory writable again, the resolution reaches it too.
     */
    private static void checkpointsStallingFireAnAlertThatReachesAWebhookAndResolves(
            String flinkJob) throws Exception {
        // Flink's reporter writes the job's name with '_' for its punctuation.
        String job = flinkJob.replace('-', '_');
        List<JsonNode> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        webhook.createContext(
                "/alerts",
                exchange -> {
                    received.add(new ObjectMapper().readTree(exchange.getRequestBody()));
                    exchange.sendResponseHeaders(200, -1);
                    exchange.close();
                });
        webhook.start();
        Path checkpoints;
        try (FlinkRest rest = host.flinkRest()) {
            String latest = rest.latestCheckpoint(rest.runningJob(flinkJob)).orElseThrow();
            checkpoints = Path.of(URI.create(latest)).getParent(); // CHECKPOINT_DIR/JOB_ID
        }
        try {
            for (String variable :
                    List.of("KFP_PROMETHEUS_PORT", "KFP_ALERTMANAGER_PORT", "KFP_EXPORTER_PORT")) {
                host.env.put(variable, String.valueOf(host.newPort()));
            }
            host.env.put(
                    "KFP_ALERT_WEBHOOK",
                    "http://127.0.0.1:" + webhook.getAddress().getPort() + "/alerts");
            assertThat(kfp("monitoring", "start")).contains("alerts go to http://127.0.0.1:");
            String prometheus = "http://127.0.0.1:" + host.env.get("KFP_PROMETHEUS_PORT");
            CommonTestUtils.waitUtil(
                    () -> {
                        try {
                            return host.get(
                                            prometheus
                                                    + "/api/v1/query?query=flink_jobmanager_job_lastCheckpointCompletedTimestamp")
                                    .contains(job);
                        } catch (Exception e) {
                            return false;
                        }
                    },
                    Duration.ofMinutes(1),
                    "Prometheus scraped no checkpoint of " + job);
            assertThat(alerts(received, "firing")).as("before the fault").isEmpty();
            // kfp's exporter, scraped too. It reads each job as its config file says (as kfp
            // status does): dedup's transactional-id prefix is the file's, its topics here are
            // not, so its open transactions are known (a number), its lag is not (NaN).
            awaitSample(
                    prometheus,
                    "kfp_job_open_transactions{job_name=\"dedup\"}",
                    "\\d+",
                    "Prometheus has no open transactions of dedup from kfp's exporter");
            // The interval the checkpoint alert counts in: dedup's 5 s, as its JobMaster runs it
            // (the rule's own fallback is 5 s too: this is the exporter's series).
            awaitSample(
                    prometheus,
                    "kfp_job_checkpoint_interval_seconds{job_name=\"dedup\"}",
                    "5",
                    "Prometheus has not dedup's checkpoint interval of 5 s from kfp's exporter");

            immutable(checkpoints, true);
            CommonTestUtils.waitUtil(
                    () -> alerts(received, "firing").contains("KfpCheckpointsStalled " + job),
                    Duration.ofMinutes(2),
                    "KfpCheckpointsStalled for " + job + " at the webhook; received " + received);
            assertThat(host.get(prometheus + "/consoles/kfp.html"))
                    .as("the pipeline's page while it fires")
                    .contains("<td class=\"firing\">KfpCheckpointsStalled</td>")
                    .contains("<td>" + job + "</td>");
            immutable(checkpoints, false);
            CommonTestUtils.waitUtil(
                    () -> alerts(received, "resolved").contains("KfpCheckpointsStalled " + job),
                    Duration.ofMinutes(2),
                    "KfpCheckpointsStalled of "
                            + job
                            + " resolved at the webhook; received "
                            + received);
        } finally {
            immutable(checkpoints, false);
            host.kfp("monitoring", "stop");
            webhook.stop(0);
        }
    }

    /** Waits until Prometheus answers {@code query} with one sample whose value matches. */
    private static void awaitSample(String prometheus, String query, String value, String what)
            throws Exception {
        String url =
                prometheus
                        + "/api/v1/query?query="
                        + java.net.URLEncoder.encode(query, StandardCharsets.UTF_8);
        CommonTestUtils.waitUtil(
                () -> {
                    try {
                        JsonNode result = json(url).path("data").path("result");
                        return result.size() == 1
                                && result.get(0).path("value").get(1).asText().matches(value);
                    } catch (Exception e) {
                        return false;
                    }
                },
                Duration.ofMinutes(1),
                what);
    }

    /** "ALERTNAME JOB" of every alert the webhook received with {@code status}. */
    private static List<String> alerts(List<JsonNode> received, String status) {
        List<String> alerts = new ArrayList<>();
        for (JsonNode notification : received) {
            for (JsonNode alert : notification.path("alerts")) {
                if (alert.path("status").asText().equals(status)) {
                    alerts.add(
                            alert.path("labels").path("alertname").asText()
                                    + " "
                                    + alert.path("labels").path("job_name").asText());
                }
            }
        }
        return alerts;
    }

    /** {@code chattr +i} / {@code -i}: nobody, root included, creates anything in {@code dir}. */
    private static void immutable(Path dir, boolean on) throws Exception {
        assertThat(
                        new ProcessBuilder("chattr", on ? "+i" : "-i", dir.toString())
                                .inheritIO()
                                .start()
                                .waitFor())
                .as("chattr " + (on ? "+i " : "-i ") + dir)
                .isZero();
    }

    /** One record per id from {@code from} to {@code to} (exclusive), keyed id-N. */
    private static void produceIds(String topic, int from, int to) {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = from; i < to; i++) {
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                ("id-" + i).getBytes(StandardCharsets.UTF_8),
                                ("value-" + i).getBytes(StandardCharsets.UTF_8)),
                        FAIL_ON_SEND_ERROR);
            }
            producer.flush();
        }
        assertThat(SEND_ERRORS.get()).as("records the test failed to produce").isZero();
    }

    private static void awaitCommitted(String topic, int records) throws Exception {
        CommonTestUtils.waitUtil(
                () -> OneHostKfp.values(topic, host.client(), true).size() >= records,
                Duration.ofMinutes(2),
                Duration.ofMillis(500),
                records + " committed records in " + topic);
    }

    private static long lastStableOffset(TopicPartition partition) {
        try (Admin admin = admin()) {
            return admin.listOffsets(
                            Map.of(partition, OffsetSpec.latest()),
                            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .partitionResult(partition)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stopEverything() {
        host.stop();
    }

    @Test
    void linesReachTheConsoleAndTheRelaySurvivesKillsAndASavepointExactlyOnce() throws Exception {
        // kfp itself points the jobs at its broker (KFP_KAFKA_PORT) and run directory
        // (KFP_RUN_DIR).
        List<String> overrides = List.of("--checkpoint.interval", "1 s");
        try (ServerSocket lineServer = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            submit("relay", overrides);
            // The same job twice would copy every record twice: refused, naming the running one.
            Commands.Result twice = host.tryKfp("submit", "relay");
            assertThat(twice.exit()).as(twice.output()).isEqualTo(2);
            assertThat(twice.output())
                    .contains(
                            "relay-job is already running on the cluster (job ", "kfp stop relay");
            // A secret on the sink's command line (a real password would come from a config
            // provider,
            // but an operator may type one): searched for in everything the cluster logs and
            // serves, below.
            submit("sink", overrides, "--kafka.properties.ssl.key.password", SECRET);
            submit(
                    "ingest",
                    overrides,
                    "--socket.endpoints",
                    "127.0.0.1:" + lineServer.getLocalPort());

            // 1. Lines typed into a socket come out of the sink, on the TaskManagers' stdout.
            List<String> lines = new ArrayList<>();
            try (Socket ingest = lineServer.accept();
                    OutputStream out = ingest.getOutputStream()) {
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < LINES; i++) {
                    lines.add("line-" + i);
                    text.append("line-").append(i).append('\n');
                }
                out.write(text.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                CommonTestUtils.waitUtil(
                        () -> printed().size() >= LINES,
                        Duration.ofMinutes(2),
                        Duration.ofMillis(100),
                        "the sink to print every line");
                assertThat(printed()).containsExactlyInAnyOrderElementsOf(lines);
                assertThat(values(true)).containsExactlyInAnyOrderElementsOf(lines);
            }

            // 2. The relay, busy, loses a TaskManager to kill -9.
            AtomicBoolean producing = new AtomicBoolean(true);
            AtomicInteger produced = new AtomicInteger();
            Thread producer = new Thread(() -> produce(producing, produced), "e2e-producer");
            producer.start();
            List<Double> recoverySeconds = new ArrayList<>();
            try {
                CommonTestUtils.waitUtil(
                        () -> produced.get() > 20_000,
                        Duration.ofMinutes(1),
                        Duration.ofMillis(100),
                        "the relay to be busy");
                for (int kill = 1; kill <= KILLS; kill++) {
                    recoverySeconds.add(killBusyTaskManagerAndMeasure(kill));
                }
            } finally {
                producing.set(false);
                if (recoverySeconds.size() < KILLS) {
                    // Never hide the failure that brought us here behind the producer's wait.
                    producer.interrupt();
                }
                producer.join(TimeUnit.MINUTES.toMillis(3));
            }
            assertThat(produced.get()).as("records produced").isGreaterThanOrEqualTo(RECORDS);

            // 3. Stop the relay with a savepoint, resume it, produce more.
            String savepoint =
                    kfp("stop", "relay", "--savepoint", host.run.resolve("savepoints").toString())
                            .trim();
            long savepointBytes = size(Path.of(savepoint.replaceFirst("^file:", "")));
            int total = produced.get() + 10_000;
            produceRange(produced.get(), total);
            // The relay stopped: kfp status shows its lag growing with what arrives, in records.
            String stopped = host.kfp("status", "relay");
            assertThat(stopped).contains("relay-job: not running - FINISHED");
            long expected = recordsAfterCommittedOffsets("lines", "kfp.relay-job.default");
            assertThat(expected)
                    .as("records produced while the relay is stopped")
                    .isGreaterThanOrEqualTo(10_000);
            assertThat(totalLag(stopped)).as(stopped).isEqualTo(expected);
            List<String> resume = new ArrayList<>(List.of("resume", "relay", "--from", savepoint));
            resume.addAll(overrides);
            kfp(resume.toArray(String[]::new));

            CommonTestUtils.waitUtil(
                    () -> relayedSequenceNumbers() >= total,
                    Duration.ofMinutes(3),
                    Duration.ofMillis(100),
                    "every record relayed");
            // The relay runs: kfp refuses to abort its transactions (its checkpoint would fail and
            // it would restart).
            Commands.Result refused = host.tryKfp("transactions", "abort", "relay");
            assertThat(refused.exit()).as(refused.output()).isEqualTo(2);
            assertThat(refused.output())
                    .contains(
                            "relay-job is running on the cluster",
                            "kfp.relay-job.",
                            "kfp stop JOB",
                            "--force");
            List<String> committed = values(true);
            long uncommitted = values(false).size();
            Map<String, Integer> counts = new HashMap<>();
            committed.forEach(v -> counts.merge(v, 1, Integer::sum));
            long duplicates =
                    counts.values().stream().filter(c -> c > 1).mapToLong(c -> c - 1).sum();
            long gaps = 0;
            for (int i = 0; i < total; i++) {
                if (!counts.containsKey("seq-" + i)) {
                    gaps++;
                }
            }
            double[] sorted =
                    recoverySeconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf(
                    "deploy e2e: lines=%d, relayed records=%d, kill -9 recoveries (s)=%s (median %.1f, max %.1f),"
                            + " savepoint=%d bytes, aborted records seen with read_uncommitted=%d, duplicates=%d, gaps=%d%n",
                    LINES,
                    total,
                    recoverySeconds,
                    sorted[sorted.length / 2],
                    sorted[sorted.length - 1],
                    savepointBytes,
                    uncommitted - committed.size(),
                    duplicates,
                    gaps);
            assertThat(duplicates).as("duplicates").isZero();
            assertThat(gaps).as("gaps").isZero();
            assertThat(committed).hasSize(LINES + total);
            // The sink has read everything: on relayed, the relay's transaction markers keep each
            // committed offset below the last stable offset, and kfp status counts no lag for them.
            CommonTestUtils.waitUtil(
                    () -> totalLag(kfpStatus("sink")) == 0,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "kfp status sink: no lag");
            String watched =
                    host.kfp("status", "sink", "--watch", "--screens", "2", "--interval", "1 s");
            assertThat(watched.split("kfp status - ", -1)).as("two screens\n" + watched).hasSize(3);
            assertThat(watched)
                    .as("no control codes in a pipe")
                    .doesNotContain("\033")
                    .contains("  lag         0 records");
            assertThat(markerGaps(watched))
                    .as(
                            "partitions whose committed offset is below the last stable offset\n"
                                    + watched)
                    .isPositive();
            // kfp verify says the same, byte for byte, with the relay still running: its topics
            // from the relay's spec and config (lines -> relayed).
            Commands.Result verified = host.tryKfp("verify", "relay");
            assertThat(verified.exit()).as(verified.output()).isZero();
            assertThat(verified.output())
                    .contains(
                            "input  lines: ",
                            "output relayed: ",
                            "exactly once " + (LINES + total) + " ",
                            "clean: every input record");

            // 4. The secret given to the sink is nowhere the cluster or kfp prints, logs or serves.
            assertSecretNowhere();
        }
        // Their slots back for the other tests of this cluster (one TaskManager fewer now).
        for (String job : List.of("ingest", "relay", "sink")) {
            kfp("cancel", job);
        }
    }

    /**
     * Searches for {@link #SECRET} in every log and stdout file of the run directory (JobManager,
     * TaskManagers, broker), the cluster's conf, kfp status and kfp logs, and the REST answers an
     * operator reads (job config, JobManager config, exceptions, job details). Not searched, on
     * purpose: the blob store, where the job graph carries the sink's Kafka settings to the
     * TaskManagers (they must log in); a config-provider reference keeps the password out of it.
     */
    private static void assertSecretNowhere() throws Exception {
        Map<String, String> places = new LinkedHashMap<>();
        for (Path dir : List.of(host.run.resolve("log"), host.run.resolve("flink-conf"))) {
            try (var files = Files.walk(dir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    places.put(
                            host.run.relativize(f).toString(),
                            Files.readString(f, StandardCharsets.ISO_8859_1));
                }
            }
        }
        places.put("kfp status", host.kfp("status"));
        places.put("kfp logs sink", host.kfp("logs", "sink"));
        String rest = host.restUrl();
        String sink;
        try (FlinkRest client = host.flinkRest()) {
            sink = client.runningJob("sink-job").toHexString();
        }
        for (String path :
                List.of(
                        "/jobs/" + sink,
                        "/jobs/" + sink + "/config",
                        "/jobs/" + sink + "/exceptions",
                        "/jobmanager/config",
                        "/jobs/overview")) {
            places.put("REST " + path, host.get(rest + path));
        }
        assertThat(places).as("files and answers searched").hasSizeGreaterThan(10);
        assertThat(places.get("REST /jobs/" + sink + "/config"))
                .as("the job's config is served")
                .contains("sink-job");
        assertThat(
                        places.entrySet().stream()
                                .filter(e -> e.getValue().contains(SECRET))
                                .map(Map.Entry::getKey)
                                .toList())
                .as("places that show the sink's password")
                .isEmpty();
    }

    /**
     * Kills (-9) a TaskManager running relay tasks (starting a replacement before the next kill)
     * and returns the seconds from the kill until the relay, having noticed the failure, committed
     * input again on every partition (its consumer offsets are committed with each completed
     * checkpoint).
     */
    private static double killBusyTaskManagerAndMeasure(int kill) throws Exception {
        String rest = host.restUrl();
        String jobId = relayJobId();
        int failuresBefore = failures(rest, jobId);
        Path pidFile = host.run.resolve("pid").resolve("taskmanager-" + busyTaskManager() + ".pid");
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        long killedAt = System.nanoTime();
        new ProcessBuilder("kill", "-9", String.valueOf(pid)).inheritIO().start().waitFor();
        CommonTestUtils.waitUtil(
                () -> failures(rest, jobId) > failuresBefore,
                Duration.ofMinutes(1),
                Duration.ofMillis(100),
                "the relay to notice kill " + kill);
        Map<TopicPartition, Long> atFailure = groupOffsets();
        CommonTestUtils.waitUtil(
                () -> {
                    Map<TopicPartition, Long> now = groupOffsets();
                    return !atFailure.isEmpty()
                            && atFailure.entrySet().stream()
                                    .allMatch(
                                            e -> now.getOrDefault(e.getKey(), -1L) > e.getValue());
                },
                Duration.ofMinutes(2),
                Duration.ofMillis(100),
                "every input partition's committed offset to move on after kill " + kill);
        double seconds = (System.nanoTime() - killedAt) / 1e9;
        if (kill < KILLS) {
            // The replacement becomes the spare for the next kill; after the last one 6 slots are
            // left for the 6 the jobs use.
            kfp("taskmanager", "start", String.valueOf(3 + kill));
            CommonTestUtils.waitUtil(
                    () -> registeredTaskManagers() == 3,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "the replacement TaskManager");
        }
        return Math.round(seconds * 10) / 10.0;
    }

    /** How many failures the job's exception history holds. */
    private static int failures(String rest, String jobId) {
        try {
            return json(rest + "/jobs/" + jobId + "/exceptions?maxExceptions=100")
                    .path("exceptionHistory")
                    .path("entries")
                    .size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The number N of the TaskManager (tm-N) that runs the relay's first subtask. */
    private static String busyTaskManager() throws Exception {
        String rest = host.restUrl();
        String jobId = relayJobId();
        String vertex = json(rest + "/jobs/" + jobId).path("vertices").path(0).path("id").asText();
        JsonNode tms =
                json(rest + "/jobs/" + jobId + "/vertices/" + vertex + "/taskmanagers")
                        .path("taskmanagers");
        String id = tms.path(0).path("taskmanager-id").asText();
        assertThat(id).as("a TaskManager running the relay in " + tms).matches("tm-\\d+");
        return id.substring("tm-".length());
    }

    /** The relay's job id, through kfp's own REST client (Flink's RestClusterClient). */
    private static String relayJobId() {
        try (FlinkRest rest = host.flinkRest()) {
            return rest.runningJob("relay-job").toHexString();
        }
    }

    /**
     * Flink's REST answers the typed client does not expose, read with Flink's own (shaded)
     * Jackson.
     */
    private static JsonNode json(String url) throws Exception {
        return new ObjectMapper().readTree(host.get(url));
    }

    private static int registeredTaskManagers() {
        try (FlinkRest rest = host.flinkRest()) {
            return rest.taskManagers();
        }
    }

    private static Map<TopicPartition, Long> groupOffsets() {
        try (Admin admin = admin()) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin.listConsumerGroupOffsets("kfp.relay-job.default")
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, o) -> offsets.put(tp, o == null ? -1L : o.offset()));
            return offsets;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String kfpStatus(String job) {
        try {
            return host.kfp("status", job);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The total of kfp status's lag line ("lag N records behind ..."); fails on an approximate (~N)
     * one.
     */
    static long totalLag(String status) {
        Matcher m = Pattern.compile("  lag +(~?)(\\d+) records behind").matcher(status);
        assertThat(m.find()).as("a lag line in\n" + status).isTrue();
        assertThat(m.group(1)).as("an exact lag\n" + status).isEmpty();
        return Long.parseLong(m.group(2));
    }

    /**
     * How many rows of kfp status's lag table show a committed offset other than the last stable
     * one.
     */
    static long markerGaps(String status) {
        Matcher row = Pattern.compile("(?m)^    \\S+-\\d+ +(\\d+) +(\\d+) +0 ").matcher(status);
        long gaps = 0;
        while (row.find()) {
            gaps += row.group(1).equals(row.group(2)) ? 0 : 1;
        }
        return gaps;
    }

    /**
     * Independently of kfp: the read_committed records of {@code topic} at or after {@code group}'s
     * committed offsets.
     */
    static long recordsAfterCommittedOffsets(String topic, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try (Admin admin = admin()) {
            committed =
                    admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS);
        }
        Properties props = host.client();
        props.setProperty("isolation.level", "read_committed");
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                assertThat(System.nanoTime())
                        .as("read " + topic + " to its end within 60 s")
                        .isLessThan(deadline);
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    var c = committed.get(new TopicPartition(r.topic(), r.partition()));
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))
                            && (c == null || r.offset() >= c.offset())) {
                        records++;
                    }
                }
            }
        }
        return records;
    }

    private static long relayedSequenceNumbers() {
        return values(true).stream().filter(v -> v.startsWith("seq-")).distinct().count();
    }

    private static void produce(AtomicBoolean producing, AtomicInteger produced) {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            // Until the kills are over, however long they take: input must keep arriving on every
            // partition, or "every committed offset moved on" could never hold after the last kill.
            while (producing.get() || produced.get() < RECORDS) {
                int i = produced.get();
                producer.send(
                        new ProducerRecord<>(
                                "lines",
                                ("key-" + (i % 50)).getBytes(StandardCharsets.UTF_8),
                                ("seq-" + i).getBytes(StandardCharsets.UTF_8)),
                        FAIL_ON_SEND_ERROR);
                produced.incrementAndGet();
                if (i % 100 == 0) {
                    // About 5,000 records/s, so input keeps arriving on every partition through
                    // the kills (the relay would copy 200,000 pre-produced records in seconds).
                    Thread.sleep(20);
                }
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void produceRange(int from, int to) {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = from; i < to; i++) {
                producer.send(
                        new ProducerRecord<>(
                                "lines",
                                ("key-" + (i % 50)).getBytes(StandardCharsets.UTF_8),
                                ("seq-" + i).getBytes(StandardCharsets.UTF_8)),
                        FAIL_ON_SEND_ERROR);
            }
            producer.flush();
        }
        assertThat(SEND_ERRORS.get()).as("records the test failed to produce").isZero();
    }

    /** Input that failed to be written (or was retried) would look like the relay's fault. */
    static final AtomicInteger SEND_ERRORS = new AtomicInteger();

    static final Callback FAIL_ON_SEND_ERROR =
            (metadata, error) -> {
                if (error != null) {
                    SEND_ERRORS.incrementAndGet();
                }
            };

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", host.bootstrap);
        props.setProperty("acks", "all");
        // One request in flight keeps order without the idempotent producer (see integration-tests'
        // Topics).
        props.setProperty("enable.idempotence", "false");
        props.setProperty("max.in.flight.requests.per.connection", "1");
        props.setProperty("linger.ms", "5");
        props.setProperty(
                "retries", "0"); // a retry could duplicate input; errors are counted instead
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Admin admin() {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", host.bootstrap);
        return Admin.create(props);
    }

    static List<String> values(boolean committedOnly) {
        return OneHostKfp.values("relayed", host.client(), committedOnly);
    }

    static List<String> printed() {
        return host.printed("line-");
    }

    /** Runs deploy/bin/kfp; returns its last output line; fails with its output on exit != 0. */
    static String kfp(String... args) throws Exception {
        return OneHostKfp.lastLine(host.kfp(args));
    }

    private static void submit(String job, List<String> overrides, String... extra)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("submit", job));
        args.addAll(overrides);
        args.addAll(Arrays.asList(extra));
        assertThat(kfp(args.toArray(String[]::new)).trim()).matches("[0-9a-f]{32}");
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
