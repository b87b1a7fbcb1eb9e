package io.kfp.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.socket.SocketLineSource;
import io.kfp.common.socket.SocketOptions;
import io.kfp.common.testing.CapturedRun;
import io.kfp.common.testing.CollectingSink;
import io.kfp.common.testing.MiniClusters;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class IngestJobTest {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.withSlots(2);

    static Configuration config(String... args) {
        List<String> all =
                new ArrayList<>(
                        List.of("--sink.topic", "lines", "--checkpoint.dir", "target/checkpoints"));
        all.addAll(List.of(args));
        return IngestJob.SPEC.configuration(all.toArray(String[]::new));
    }

    @Test
    void twoEndpointsAreReadInParallelIntoTheSink() throws Exception {
        int perEndpoint = 20_000;
        try (ServerSocket a = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
                ServerSocket b = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            // Each server sends only once both have a connection: sequential reading would
            // leave the first one waiting for ever, so the job finishing proves parallelism.
            CountDownLatch bothConnected = new CountDownLatch(2);
            Thread serveA = serve(a, "a", perEndpoint, bothConnected);
            Thread serveB = serve(b, "b", perEndpoint, bothConnected);
            CollectingSink<byte[]> sink = new CollectingSink<>();
            Configuration config =
                    config(
                            "--socket.endpoints",
                            "127.0.0.1:" + a.getLocalPort() + ",127.0.0.1:" + b.getLocalPort(),
                            "--socket.bounded",
                            "true");

            StreamEnvironments.execute(
                    config,
                    new IngestJob(
                            config, new SocketLineSource(SocketOptions.settings(config)), sink));
            serveA.join(10_000);
            serveB.join(10_000);

            List<String> expected = new ArrayList<>();
            for (int i = 0; i < perEndpoint; i++) {
                expected.add("a-" + i);
                expected.add("b-" + i);
            }
            assertThat(sink.received())
                    .extracting(line -> new String(line, StandardCharsets.UTF_8))
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private static Thread serve(
            ServerSocket server, String name, int lines, CountDownLatch bothConnected) {
        Thread t =
                new Thread(
                        () -> {
                            try (Socket socket = server.accept();
                                    OutputStream out = socket.getOutputStream()) {
                                bothConnected.countDown();
                                if (!bothConnected.await(30, TimeUnit.SECONDS)) {
                                    return;
                                }
                                StringBuilder text = new StringBuilder();
                                for (int i = 0; i < lines; i++) {
                                    text.append(name).append('-').append(i).append('\n');
                                }
                                out.write(text.toString().getBytes(StandardCharsets.UTF_8));
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        "serve-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void operatorsKeepStableUidsAndOneReaderAndWriterPerEndpoint() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration config =
                config("--socket.endpoints", "h:1,h:2,h:3", "--job.parallelism", "2");
        new IngestJob(
                        config,
                        new SocketLineSource(SocketOptions.settings(config)),
                        new CollectingSink<>())
                .addTo(env);
        List<StreamNode> nodes = new ArrayList<>(env.getStreamGraph().getStreamNodes());
        assertThat(nodes)
                .extracting(StreamNode::getTransformationUID)
                .contains(IngestJob.SOURCE_UID, IngestJob.SINK_UID);
        assertThat(nodes)
                .filteredOn(n -> IngestJob.SOURCE_UID.equals(n.getTransformationUID()))
                .singleElement()
                .extracting(StreamNode::getParallelism)
                .isEqualTo(3);
        // The writers run at the readers' parallelism, so each reader is chained to its own (no
        // shuffle).
        assertThat(nodes)
                .filteredOn(n -> IngestJob.SINK_UID.equals(n.getTransformationUID()))
                .singleElement()
                .extracting(StreamNode::getParallelism)
                .isEqualTo(3);
    }

    @Test
    void itsWorkflowLetsTheChainedWriterTakeEachLineWithoutACopy() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        assertThat(env.getConfig().isObjectReuseEnabled()).as("Flink's default").isFalse();
        Configuration config = config("--socket.endpoints", "h:1");
        new IngestJob(
                        config,
                        new SocketLineSource(SocketOptions.settings(config)),
                        new CollectingSink<>())
                .addTo(env);
        assertThat(env.getConfig().isObjectReuseEnabled()).isTrue();
    }

    @Test
    void mainAnswersHelpAndRejectsBadOptionsWithExitTwo() {
        CapturedRun help = CapturedRun.of(IngestJob.SPEC, "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .startsWith("ingest-job: ")
                .contains(
                        "--socket.endpoints  (default: localhost:9999)",
                        "--socket.max-line-length  (default: 1000 kb)",
                        "--sink.delivery-guarantee  (default: at-least-once)",
                        "--socket.empty-lines  (default: keep)");

        CapturedRun bad =
                CapturedRun.of(
                        IngestJob.SPEC,
                        "--sink.topic",
                        "t",
                        "--socket.endpoints",
                        "localhost,h:99999",
                        "--socket.max-retries",
                        "-2",
                        "--socket.charset",
                        "UTF-9");
        CapturedRun utf16 =
                CapturedRun.of(IngestJob.SPEC, "--sink.topic", "t", "--socket.charset", "UTF-16");
        assertThat(utf16.exitCode()).isEqualTo(2);
        assertThat(utf16.err()).contains("not ASCII-compatible");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err())
                .contains("'localhost' is not host:port", "the port must be between 1 and 65535")
                .contains("socket.max-retries = \"-2\"", "socket.charset = \"UTF-9\"");
    }

    @Test
    void aMaxLineLengthThatCannotFitInOneProducerRequestIsRejected() {
        CapturedRun tooLong =
                CapturedRun.of(
                        IngestJob.SPEC, "--sink.topic", "t", "--socket.max-line-length", "1 mb");
        assertThat(tooLong.exitCode()).isEqualTo(2);
        assertThat(tooLong.err())
                .contains(
                        "socket.max-line-length = \"1 mb\"",
                        "does not fit in one producer request (max.request.size 1048576 bytes",
                        "use at most 1048448 bytes");
        assertThat(
                        config(
                                "--socket.max-line-length",
                                "1 mb",
                                "--kafka.properties.max.request.size",
                                "2097152"))
                .isNotNull();
        CapturedRun notANumber =
                CapturedRun.of(
                        IngestJob.SPEC,
                        "--sink.topic",
                        "t",
                        "--kafka.properties.max.request.size",
                        "2 MB");
        assertThat(notANumber.err())
                .contains("kafka.properties.max.request.size", "not a whole number of bytes");
    }
}
