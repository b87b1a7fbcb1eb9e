package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.console.ConsoleSink;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.Workflow;
import io.kfp.common.testing.MiniClusters;
import io.kfp.ingest.IngestJob;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import io.kfp.testkit.EmbeddedJobs;
import io.kfp.testkit.KafkaExtension;
import io.kfp.testkit.KafkaTopics;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * socket -> ingest-job -> topic A -> relay-job -> topic B -> sink-job -> console, all three started
 * through their entry points on one cluster, as ./run-pipeline does.
 */
class PipelineTest {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(6);

    /** What the sink job printed; its writers run in this JVM. */
    static final ByteArrayOutputStream PRINTED = new ByteArrayOutputStream();

    private final List<JobClient> jobs = new ArrayList<>();

    @AfterEach
    void cancelJobs() throws Exception {
        for (JobClient job : jobs) {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                job.cancel().get(1, TimeUnit.MINUTES);
            }
        }
    }

    static OutputStream printed() {
        return new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (PRINTED) {
                    PRINTED.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (PRINTED) {
                    PRINTED.write(b, off, len);
                }
            }
        };
    }

    static List<String> printedLines() {
        synchronized (PRINTED) {
            String text = PRINTED.toString(StandardCharsets.UTF_8);
            return text.isEmpty()
                    ? List.of()
                    : Arrays.asList(text.split("\n", -1))
                            .subList(0, text.split("\n", -1).length - 1);
        }
    }

    /**
     * Starts the three jobs on topics {@code name}-a and {@code name}-b; ingest reads {@code port}.
     */
    private void startPipeline(String name, int port, String... ingestOptions) throws Exception {
        KAFKA.kafka().createTopics(4, name + "-a", name + "-b");
        List<String> common =
                List.of(
                        "--kafka.bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--job.instance-id",
                        name,
                        "--job.parallelism",
                        "2", // 3 jobs x 2 slots: the cluster's 6
                        "--checkpoint.interval",
                        "500 ms",
                        "--checkpoint.dir",
                        "target/it-checkpoints/" + name);
        List<String> ingest = new ArrayList<>(common);
        ingest.addAll(
                List.of(
                        "--sink.topic",
                        name + "-a",
                        "--socket.endpoints",
                        "127.0.0.1:" + port,
                        "--socket.bounded",
                        "true"));
        ingest.addAll(List.of(ingestOptions));
        List<String> relay = new ArrayList<>(common);
        relay.addAll(List.of("--source.topics", name + "-a", "--sink.topic", name + "-b"));
        List<String> sink = new ArrayList<>(common);
        sink.addAll(List.of("--source.topics", name + "-b", "--source.offset-reset", "earliest"));

        jobs.add(
                start(
                        SinkJob.SPEC,
                        c ->
                                SinkJob.fromConfig(
                                        c,
                                        new ConsoleSink(
                                                PipelineTest::printed, Duration.ofMillis(100))),
                        sink));
        jobs.add(start(RelayJob.SPEC, RelayJob.SPEC::workflow, relay));
        jobs.add(start(IngestJob.SPEC, IngestJob.SPEC::workflow, ingest));
    }

    private static JobClient start(
            JobSpec spec, Function<Configuration, ? extends Workflow> workflow, List<String> args) {
        EmbeddedJobs.Submitted s =
                EmbeddedJobs.submit(
                        spec, workflow, args.toArray(String[]::new), System.out, System.err);
        assertThat(s.exitCode()).as(spec.command() + " exit code").isZero();
        return s.client();
    }

    /** Accepts the ingest job's connection and sends {@code payload}, then closes. */
    static Thread serve(ServerSocket server, byte[] payload) {
        return serve(server, payload, new CountDownLatch(0));
    }

    /**
     * Like {@link #serve(ServerSocket, byte[])}, keeping the connection open until {@code done}.
     */
    private static Thread serve(ServerSocket server, byte[] payload, CountDownLatch done) {
        Thread t =
                new Thread(
                        () -> {
                            try (Socket socket = server.accept();
                                    OutputStream out = socket.getOutputStream()) {
                                out.write(payload);
                                out.flush();
                                done.await(5, TimeUnit.MINUTES);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        "pipeline-test-server");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static List<String> values(String topic) {
        List<String> values = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r :
                KafkaTopics.readAll(KAFKA.bootstrapServers(), topic, true)) {
            values.add(new String(r.value(), StandardCharsets.UTF_8));
        }
        return values;
    }

    @Test
    void linesTravelFromTheSocketToTheConsoleExactlyOnce() throws Exception {
        int n = 5_000;
        List<String> lines = new ArrayList<>();
        StringBuilder payload = new StringBuilder();
        for (int i = 0; i < n; i++) {
            lines.add("line " + i);
            payload.append("line ").append(i).append('\n');
        }
        synchronized (PRINTED) {
            PRINTED.reset();
        }
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            serve(server, payload.toString().getBytes(StandardCharsets.UTF_8));
            startPipeline("p1", server.getLocalPort());

            CommonTestUtils.waitUtil(
                    () -> values("p1-b").size() >= n,
                    Duration.ofMinutes(2),
                    Duration.ofMillis(100),
                    "all lines in topic B");
            CommonTestUtils.waitUtil(
                    () -> printedLines().size() >= n,
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "all lines printed");

            assertThat(values("p1-b")).containsExactlyInAnyOrderElementsOf(lines);
            assertThat(printedLines()).containsExactlyInAnyOrderElementsOf(lines);
        }
    }

    @Test
    void badInputIsCountedOrEscapedAndGoodLinesAroundItArrive(
            @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.write("before\n".getBytes(StandardCharsets.UTF_8));
        payload.write(
                "x"
                        .repeat(200 * 1024)
                        .getBytes(StandardCharsets.UTF_8)); // an endless line: 200x the limit
        payload.write("\n\nafter-empty\n".getBytes(StandardCharsets.UTF_8));
        payload.write(new byte[] {'b', 'a', 'd', (byte) 0xff, (byte) 0xfe, '\n'});
        byte[] notUtf8 = {(byte) 0xff, (byte) 0xfe, ' ', '.', '.', '.', ' ', (byte) 0xc3, '('};
        payload.write(notUtf8);
        payload.write('\n');
        payload.write(new byte[] {0, 1, 2, 3, '\n'});
        payload.write("last\n".getBytes(StandardCharsets.UTF_8));
        byte[] binary = {(byte) 0xc3, 0x28, 0, (byte) 0xff, '\n', (byte) 0x80};

        CountDownLatch done = new CountDownLatch(1);
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            // The connection stays open, so the ingest job still runs when its metrics are read.
            serve(server, payload.toByteArray(), done);
            startPipeline(
                    "p6",
                    server.getLocalPort(),
                    "--socket.max-line-length",
                    "1 kb",
                    "--socket.bounded",
                    "false");
            // Binary records produced straight to topic A must be relayed byte for byte.
            KafkaTopics.produce(
                    KAFKA.bootstrapServers(),
                    List.of(
                            new ProducerRecord<>(
                                    "p6-a",
                                    0,
                                    null,
                                    "bin".getBytes(StandardCharsets.UTF_8),
                                    binary)));

            // Lines that are not UTF-8 keep their bytes (socket.malformed=keep, the default).
            List<String> expected =
                    hex(
                            List.of(
                                    utf8("before"),
                                    utf8(""),
                                    utf8("after-empty"),
                                    new byte[] {'b', 'a', 'd', (byte) 0xff, (byte) 0xfe},
                                    notUtf8,
                                    new byte[] {0, 1, 2, 3},
                                    utf8("last")));
            CommonTestUtils.waitUtil(
                    () -> values("p6-b").size() >= expected.size() + 1,
                    Duration.ofMinutes(2),
                    Duration.ofMillis(100),
                    "good lines and the binary record in topic B");

            List<ConsumerRecord<byte[], byte[]>> out =
                    KafkaTopics.readAll(KAFKA.bootstrapServers(), "p6-b", true);
            List<byte[]> lines = new ArrayList<>();
            byte[] relayedBinary = null;
            for (ConsumerRecord<byte[], byte[]> r : out) {
                if (r.key() != null && new String(r.key(), StandardCharsets.UTF_8).equals("bin")) {
                    relayedBinary = r.value();
                } else {
                    lines.add(r.value());
                }
            }
            assertThat(hex(lines))
                    .as("the lines' bytes, as they were sent")
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(relayedBinary).as("binary record, byte for byte").isEqualTo(binary);
            CommonTestUtils.waitUtil(
                    () ->
                            printedLines()
                                    .containsAll(
                                            List.of(
                                                    "\\xc3(\\x00\\xff\\n\\x80",
                                                    "bad\\xff\\xfe",
                                                    "\\xff\\xfe ... \\xc3(")),
                    Duration.ofMinutes(1),
                    Duration.ofMillis(100),
                    "the sink to print the escaped binary record and the lines that are not UTF-8");

            assertThat(oversizedLinesSkipped(cluster.getWebInterfaceURL(), jobs.get(2)))
                    .isEqualTo(1);
        } finally {
            done.countDown();
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> hex(List<byte[]> values) {
        return values.stream().map(HexFormat.of()::formatHex).toList();
    }

    /** The ingest source's counter, read through the cluster's REST API as an operator would. */
    private static long oversizedLinesSkipped(String restUrl, JobClient ingest) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String job = restUrl + "/jobs/" + ingest.getJobID();
        String vertices = get(http, job);
        Matcher vertex =
                Pattern.compile(
                                "\"id\":\"([0-9a-f]{32})\",\"slotSharingGroupId\":\"[^\"]*\",\"name\":\"Source: socket")
                        .matcher(vertices);
        if (!vertex.find()) {
            vertex =
                    Pattern.compile("\"id\":\"([0-9a-f]{32})\",\"name\":\"Source: socket")
                            .matcher(vertices);
            assertThat(vertex.find()).as("source vertex in " + vertices).isTrue();
        }
        String metrics = job + "/vertices/" + vertex.group(1) + "/metrics";
        long[] value = {-1};
        CommonTestUtils.waitUtil(
                () -> {
                    try {
                        Matcher id =
                                Pattern.compile("\"id\":\"([^\"]*oversizedLinesSkipped)\"")
                                        .matcher(get(http, metrics));
                        if (!id.find()) {
                            return false;
                        }
                        Matcher v =
                                Pattern.compile("\"value\":\"(\\d+)\"")
                                        .matcher(
                                                get(
                                                        http,
                                                        metrics
                                                                + "?get="
                                                                + URLEncoder.encode(
                                                                        id.group(1),
                                                                        StandardCharsets.UTF_8)));
                        value[0] = v.find() ? Long.parseLong(v.group(1)) : -1;
                        return value[0] > 0;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                Duration.ofSeconds(60),
                Duration.ofMillis(100),
                "the oversizedLinesSkipped metric");
        return value[0];
    }

    private static String get(HttpClient http, String url) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create(url)).GET().build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
