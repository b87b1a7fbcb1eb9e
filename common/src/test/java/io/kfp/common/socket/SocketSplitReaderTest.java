package io.kfp.common.socket;

import static io.kfp.common.socket.LineServer.send;
import static io.kfp.common.socket.LineServer.sendBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One endpoint's reader against a real loopback server. */
class SocketSplitReaderTest {

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private EndpointMetrics metrics;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    static SocketSourceSettings settings(
            String endpoint,
            int maxLineLength,
            boolean bounded,
            int maxRetries,
            SocketSourceSettings.MalformedPolicy malformed,
            boolean dropEmpty) {
        return settings(
                endpoint, maxLineLength, bounded, maxRetries, malformed, dropEmpty, Duration.ZERO);
    }

    static SocketSourceSettings settings(
            String endpoint,
            int maxLineLength,
            boolean bounded,
            int maxRetries,
            SocketSourceSettings.MalformedPolicy malformed,
            boolean dropEmpty,
            Duration idleTimeout) {
        return new SocketSourceSettings(
                List.of(Endpoint.parse(endpoint)),
                new byte[] {'\n'},
                "UTF-8",
                malformed,
                maxLineLength,
                SocketSourceSettings.OversizedPolicy.SKIP,
                dropEmpty,
                Duration.ofSeconds(2),
                maxRetries,
                Duration.ofMillis(10),
                Duration.ofMillis(40),
                idleTimeout,
                bounded);
    }

    private SocketSplitReader reader(SocketSourceSettings settings) {
        SocketSplitReader reader =
                new SocketSplitReader(
                        settings,
                        endpoint ->
                                metrics =
                                        new EndpointMetrics(
                                                new UnregisteredMetricsGroup(), endpoint));
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(new SocketSplit(0, settings.endpoints().get(0)))));
        toClose.add(reader);
        return reader;
    }

    private LineServer server() throws IOException {
        LineServer server = new LineServer();
        toClose.add(server);
        return server;
    }

    /**
     * Fetches until {@code count} lines arrived or the split finished, as UTF-8 text; fails after
     * 20 s.
     */
    private static List<String> read(SocketSplitReader reader, int count, boolean[] finished)
            throws IOException {
        return readBytes(reader, count, finished).stream()
                .map(b -> new String(b, StandardCharsets.UTF_8))
                .toList();
    }

    /** Fetches until {@code count} records arrived or the split finished; fails after 20 s. */
    static List<byte[]> readBytes(SocketSplitReader reader, int count, boolean[] finished)
            throws IOException {
        List<byte[]> lines = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (lines.size() < count && System.nanoTime() < deadline) {
            RecordsWithSplitIds<byte[]> batch = reader.fetch();
            for (String split = batch.nextSplit(); split != null; split = batch.nextSplit()) {
                for (byte[] line = batch.nextRecordFromSplit();
                        line != null;
                        line = batch.nextRecordFromSplit()) {
                    lines.add(line);
                }
            }
            if (!batch.finishedSplits().isEmpty()) {
                finished[0] = true;
                break;
            }
        }
        return lines;
    }

    @Test
    void linesWrittenInPiecesArriveWholeAndTheLastLineWithoutDelimiterCounts() throws Exception {
        LineServer server =
                server().then(
                                out -> {
                                    for (String piece :
                                            new String[] {"hel", "lo\r\nwor", "ld\n\n", "last"}) {
                                        out.write(piece.getBytes(StandardCharsets.UTF_8));
                                        out.flush();
                                        Thread.sleep(20);
                                    }
                                });
        boolean[] finished = {false};
        List<String> lines =
                read(
                        reader(
                                settings(
                                        server.endpoint(),
                                        100,
                                        true,
                                        0,
                                        SocketSourceSettings.MalformedPolicy.REPLACE,
                                        false)),
                        10,
                        finished);
        assertThat(lines).containsExactly("hello", "world", "", "last");
        assertThat(finished[0]).as("bounded split ends when the peer closes").isTrue();
        assertThat(metrics.lines.getCount()).isEqualTo(4);
        assertThat(metrics.bytes.getCount()).isEqualTo(18);
    }

    @Test
    void emptyLinesCanBeDropped() throws Exception {
        LineServer server = server().then(send("a\n\n\nb\n"));
        boolean[] finished = {false};
        List<String> lines =
                read(
                        reader(
                                settings(
                                        server.endpoint(),
                                        100,
                                        true,
                                        0,
                                        SocketSourceSettings.MalformedPolicy.REPLACE,
                                        true)),
                        10,
                        finished);
        assertThat(lines).containsExactly("a", "b");
        assertThat(metrics.emptyLinesDropped.getCount()).isEqualTo(2);
    }

    @Test
    void invalidUtf8AndBinaryGarbageAreReplacedOrRejectedNeverFatal() throws Exception {
        byte[] garbage = {
            'o',
            'k',
            '\n',
            (byte) 0xff,
            (byte) 0xfe,
            0,
            1,
            '\n',
            'c',
            (byte) 0xc3,
            (byte) 0xa9,
            '\n'
        };
        LineServer replacing = server().then(sendBytes(garbage));
        boolean[] finished = {false};
        assertThat(
                        read(
                                reader(
                                        settings(
                                                replacing.endpoint(),
                                                100,
                                                true,
                                                0,
                                                SocketSourceSettings.MalformedPolicy.REPLACE,
                                                false)),
                                10,
                                finished))
                .containsExactly("ok", "\uFFFD\uFFFD\u0000\u0001", "cé");
        assertThat(metrics.malformedLines.getCount()).isEqualTo(1);

        LineServer rejecting = server().then(sendBytes(garbage));
        assertThat(
                        read(
                                reader(
                                        settings(
                                                rejecting.endpoint(),
                                                100,
                                                true,
                                                0,
                                                SocketSourceSettings.MalformedPolicy.REJECT,
                                                false)),
                                10,
                                finished))
                .containsExactly("ok", "cé");
        assertThat(metrics.malformedLines.getCount()).isEqualTo(1);
    }

    @Test
    void byDefaultEveryLineKeepsItsBytesAsTheyAreEvenWhenNotUtf8() throws Exception {
        // Every byte value but the delimiter, then invalid UTF-8 (a lone continuation, a truncated
        // sequence, an overlong '/', a surrogate), then CRLF: the record bytes are the line bytes.
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        List<byte[]> expected = new ArrayList<>();
        byte[] everyByte = new byte[255];
        for (int b = 0, i = 0; b < 256; b++) {
            if (b != '\n') {
                everyByte[i++] = (byte) b;
            }
        }
        expected.add(everyByte);
        expected.add(new byte[] {(byte) 0xff, (byte) 0xfe, ' ', 'x', ' ', (byte) 0xc3, '('});
        expected.add(
                new byte[] {
                    (byte) 0x80,
                    'a',
                    (byte) 0xe2,
                    (byte) 0x82,
                    'b',
                    (byte) 0xc0,
                    (byte) 0xaf,
                    (byte) 0xed,
                    (byte) 0xa0,
                    (byte) 0x80
                });
        expected.add("caf\u00e9 \u20ac \ud83d\ude00".getBytes(StandardCharsets.UTF_8));
        expected.add(new byte[0]);
        for (byte[] line : expected) {
            sent.write(line);
            sent.write('\n');
        }
        sent.write("crlf\r\n".getBytes(StandardCharsets.US_ASCII));
        expected.add("crlf".getBytes(StandardCharsets.US_ASCII));
        // everyByte ends with \xff: no \r is stripped from it. One that does end with \r loses it
        // (CRLF).
        LineServer server = server().then(sendBytes(sent.toByteArray()));
        boolean[] finished = {false};
        List<byte[]> lines =
                readBytes(
                        reader(
                                settings(
                                        server.endpoint(),
                                        1000,
                                        true,
                                        0,
                                        SocketSourceSettings.MalformedPolicy.KEEP,
                                        false)),
                        10,
                        finished);
        assertThat(lines).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(lines.get(i)).as("line " + i).containsExactly(expected.get(i));
        }
        assertThat(metrics.malformedLines.getCount())
                .as("the lines that are not UTF-8, kept but counted")
                .isEqualTo(3);
        assertThat(metrics.lines.getCount()).isEqualTo(expected.size());
    }

    @Test
    void aUtf8ByteOrderMarkAtTheStartOfAConnectionIsDroppedAnywhereElseKept() throws Exception {
        byte[] bom = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        sent.write(bom);
        sent.write("key:first\n".getBytes(StandardCharsets.UTF_8));
        sent.write(bom);
        sent.write("second\n".getBytes(StandardCharsets.UTF_8));
        // Sent a byte at a time: the mark is recognised across reads too.
        LineServer server =
                server().then(
                                out -> {
                                    for (byte b : sent.toByteArray()) {
                                        out.write(b);
                                        out.flush();
                                    }
                                });
        boolean[] finished = {false};
        assertThat(
                        read(
                                reader(
                                        settings(
                                                server.endpoint(),
                                                100,
                                                true,
                                                0,
                                                SocketSourceSettings.MalformedPolicy.KEEP,
                                                false)),
                                10,
                                finished))
                .containsExactly("key:first", "\ufeffsecond");
        assertThat(metrics.malformedLines.getCount()).isZero();

        // One or two bytes that only begin like a mark are the line's.
        LineServer short1 = server().then(sendBytes(new byte[] {(byte) 0xef, (byte) 0xbb}));
        assertThat(
                        readBytes(
                                reader(
                                        settings(
                                                short1.endpoint(),
                                                100,
                                                true,
                                                0,
                                                SocketSourceSettings.MalformedPolicy.KEEP,
                                                false)),
                                10,
                                finished))
                .singleElement()
                .satisfies(line -> assertThat(line).containsExactly(0xef, 0xbb));
        LineServer short2 = server().then(sendBytes(new byte[] {(byte) 0xef, 'x', '\n'}));
        assertThat(
                        readBytes(
                                reader(
                                        settings(
                                                short2.endpoint(),
                                                100,
                                                true,
                                                0,
                                                SocketSourceSettings.MalformedPolicy.KEEP,
                                                false)),
                                10,
                                finished))
                .singleElement()
                .satisfies(line -> assertThat(line).containsExactly(0xef, 'x'));
    }

    @Test
    void aPeerSendingUtf16IsRefusedWithAMessageSayingHowToSendUtf8() throws Exception {
        byte[] utf16 = "\ufeffhello\n".getBytes(Charset.forName("UTF-16LE"));
        LineServer bounded = server().then(sendBytes(utf16));
        assertThatThrownBy(
                        () ->
                                readBytes(
                                        reader(
                                                settings(
                                                        bounded.endpoint(),
                                                        100,
                                                        true,
                                                        0,
                                                        SocketSourceSettings.MalformedPolicy.KEEP,
                                                        false)),
                                        10,
                                        new boolean[1]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(
                        "sends UTF-16 or UTF-32 (the connection began with the byte order mark FF FE)")
                .hasMessageContaining("socket.charset")
                .hasMessageContaining("iconv -f UTF-16 -t UTF-8");
        assertThat(metrics.refusedConnections.getCount()).isEqualTo(1);
        assertThat(metrics.lines.getCount()).as("no garbled line reached Kafka").isZero();

        // Unbounded: each connection refused is a failed attempt; after socket.max-retries the job
        // fails.
        byte[] utf16be = "\ufeffhi\n".getBytes(Charset.forName("UTF-16BE"));
        LineServer endless = server().then(sendBytes(utf16be)).then(sendBytes(utf16be));
        SocketSplitReader reader =
                reader(
                        settings(
                                endless.endpoint(),
                                100,
                                false,
                                1,
                                SocketSourceSettings.MalformedPolicy.KEEP,
                                false));
        assertThatThrownBy(() -> readBytes(reader, 10, new boolean[1]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("byte order mark FE FF")
                .hasMessageContaining("refused 2 connections (socket.max-retries=1)");
        assertThat(metrics.lines.getCount()).isZero();
    }

    @Test
    void anEndlessLineIsSkippedAndTheGoodLinesAfterItArrive() throws Exception {
        int max = 1024;
        LineServer server =
                server().then(
                                out -> {
                                    byte[] x = "x".repeat(4096).getBytes(StandardCharsets.UTF_8);
                                    for (int i = 0; i < 25; i++) { // 100x the limit
                                        out.write(x);
                                    }
                                    out.write(
                                            "\ngood 1\ngood 2\n".getBytes(StandardCharsets.UTF_8));
                                });
        boolean[] finished = {false};
        assertThat(
                        read(
                                reader(
                                        settings(
                                                server.endpoint(),
                                                max,
                                                true,
                                                0,
                                                SocketSourceSettings.MalformedPolicy.REPLACE,
                                                false)),
                                10,
                                finished))
                .containsExactly("good 1", "good 2");
        assertThat(metrics.oversizedLinesSkipped.getCount()).isEqualTo(1);
    }

    @Test
    void unboundedReaderReconnectsAfterThePeerDisconnects() throws Exception {
        LineServer server = server().then(send("before\n")).then(send("after\n"));
        boolean[] finished = {false};
        List<String> lines =
                read(
                        reader(
                                settings(
                                        server.endpoint(),
                                        100,
                                        false,
                                        5,
                                        SocketSourceSettings.MalformedPolicy.REPLACE,
                                        false)),
                        2,
                        finished);
        assertThat(lines).containsExactly("before", "after");
        assertThat(finished[0]).isFalse();
        assertThat(metrics.reconnects.getCount()).isEqualTo(1);
        assertThat(server.accepted).isEqualTo(2);
    }

    @Test
    void aPeerThatClosesInTheMiddleOfALineLeavesNoFragmentBehind() throws Exception {
        LineServer server = server().then(send("whole\npart")).then(send("next\n"));
        boolean[] finished = {false};
        List<String> lines =
                read(
                        reader(
                                settings(
                                        server.endpoint(),
                                        100,
                                        false,
                                        5,
                                        SocketSourceSettings.MalformedPolicy.REPLACE,
                                        false)),
                        2,
                        finished);
        assertThat(lines).containsExactly("whole", "next");
        assertThat(metrics.unfinishedLinesDropped.getCount()).isEqualTo(1);
        assertThat(metrics.lines.getCount()).isEqualTo(2);
    }

    @Test
    void aPeerThatGoesSilentWithoutClosingIsLeftAfterTheIdleTimeout() throws Exception {
        // A server that never closes: the first connection hangs after half a line, the second
        // sends one line.
        ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        toClose.add(server);
        List<Socket> open = new CopyOnWriteArrayList<>();
        Thread acceptor =
                new Thread(
                        () -> {
                            try {
                                for (String text : new String[] {"a\nhal", "b\n"}) {
                                    Socket peer = server.accept();
                                    open.add(peer);
                                    peer.getOutputStream()
                                            .write(text.getBytes(StandardCharsets.UTF_8));
                                    peer.getOutputStream().flush();
                                }
                            } catch (IOException closedByTheTest) {
                                // the test is over
                            }
                        },
                        "hanging-server");
        acceptor.setDaemon(true);
        acceptor.start();
        toClose.add(
                () -> {
                    for (Socket peer : open) {
                        peer.close();
                    }
                });
        boolean[] finished = {false};
        SocketSplitReader reader =
                reader(
                        settings(
                                "127.0.0.1:" + server.getLocalPort(),
                                100,
                                false,
                                5,
                                SocketSourceSettings.MalformedPolicy.REPLACE,
                                false,
                                Duration.ofSeconds(1)));
        assertThat(read(reader, 2, finished)).containsExactly("a", "b");
        assertThat(metrics.unfinishedLinesDropped.getCount()).isEqualTo(1);
        assertThat(metrics.reconnects.getCount()).isEqualTo(1);
    }

    @Test
    void everyConnectionProbesItsPeerWithTcpKeepalive() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket socket = new Socket(server.getInetAddress(), server.getLocalPort())) {
            SocketSplitReader.keepAlive(socket);
            assertThat(socket.getKeepAlive()).isTrue();
            assertThat(socket.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(30);
            assertThat(socket.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL))
                    .isEqualTo(10);
            assertThat(socket.getOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(3);
        }
    }

    @Test
    void aRefusingEndpointFailsAfterTheConfiguredRetriesNamingItAndTheLastError() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        SocketSplitReader reader =
                reader(
                        settings(
                                "127.0.0.1:" + port,
                                100,
                                false,
                                2,
                                SocketSourceSettings.MalformedPolicy.REPLACE,
                                false));
        assertThatThrownBy(() -> read(reader, 1, new boolean[1]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Could not connect to 127.0.0.1:" + port)
                .hasMessageContaining("3 attempts failed (socket.max-retries=2)")
                .hasMessageContaining("Connection refused");

        SocketSplitReader noRetry =
                reader(
                        settings(
                                "127.0.0.1:" + port,
                                100,
                                false,
                                0,
                                SocketSourceSettings.MalformedPolicy.REPLACE,
                                false));
        assertThatThrownBy(() -> read(noRetry, 1, new boolean[1]))
                .hasMessageContaining("1 attempt failed");
    }

    @Test
    void backoffDoublesUpToTheMaximum() {
        SocketSplitReader reader =
                reader(
                        settings(
                                "127.0.0.1:1",
                                100,
                                false,
                                -1,
                                SocketSourceSettings.MalformedPolicy.REPLACE,
                                false));
        assertThat(
                        List.of(
                                reader.backoffMs(1),
                                reader.backoffMs(2),
                                reader.backoffMs(3),
                                reader.backoffMs(9)))
                .containsExactly(10L, 20L, 40L, 40L);
    }
}
