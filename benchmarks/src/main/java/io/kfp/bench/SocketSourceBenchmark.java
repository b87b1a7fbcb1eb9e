package io.kfp.bench;

import io.kfp.ingest.socket.Endpoint;
import io.kfp.ingest.socket.SocketLineSource;
import io.kfp.ingest.socket.SocketSourceSettings;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;

/**
 * Lines per second of the ingest job's socket source, beside the legacy {@code
 * socketTextStream} (the thing it replaces: used here only as the baseline) and a plain Java
 * loop reading and splitting the same bytes (the ceiling). Each case reads LINES lines of 100
 * bytes over loopback into a sink that only counts; cases alternate, each runs ROUNDS times; the
 * clock runs from the server accepting the connection to the sink counting the last line.
 *
 * <p>Usage: {@code benchmarks/run socket-source [lines] [rounds]}.
 */
public final class SocketSourceBenchmark {

    static final int LINE_BYTES = 100; // 99 characters + '\\n'
    private static final AtomicLong COUNTED = new AtomicLong();
    private static volatile long lastLineNanos;
    private static volatile long expectedLines;

    private SocketSourceBenchmark() {}

    public static void main(String[] args) throws Exception {
        long lines = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Configuration config = new Configuration();
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(config).setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, 1);
        Map<String, List<Double>> results = new LinkedHashMap<>();
        try {
            for (int round = 0; round < rounds; round++) {
                record(results, "plain Java loop (ceiling)", plainLoop(lines));
                record(results, "legacy socketTextStream", legacy(lines));
                record(results, "SocketLineSource, 1 endpoint", flip27(lines, 1));
                record(results, "SocketLineSource, 2 endpoints", flip27(lines, 2));
            }
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
        System.out.printf("%n%d lines of %d bytes per endpoint, %d rounds, lines/s (median [min, max]):%n", lines, LINE_BYTES, rounds);
        results.forEach((name, rates) -> {
            double[] r = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf("  %-32s %,12.0f  [%,.0f, %,.0f]%n", name, r[r.length / 2], r[0], r[r.length - 1]);
        });
        double plain = median(results.get("plain Java loop (ceiling)"));
        double legacy = median(results.get("legacy socketTextStream"));
        double one = median(results.get("SocketLineSource, 1 endpoint"));
        double two = median(results.get("SocketLineSource, 2 endpoints"));
        System.out.printf("  SocketLineSource / legacy = %.2fx (target >= 1.0x); / plain loop = %.2fx (target >= 0.7x);"
                + " 2 endpoints / 1 endpoint = %.2fx (target >= 1.6x)%n", one / legacy, one / plain, two / one);
    }

    private static void record(Map<String, List<Double>> results, String name, double linesPerSecond) {
        results.computeIfAbsent(name, n -> new ArrayList<>()).add(linesPerSecond);
        System.out.printf("  %-32s %,12.0f lines/s, %.1f cores busy (whole JVM, server included)%n",
                name, linesPerSecond, lastCores);
    }

    private static double lastCores;
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    private static double median(List<Double> values) {
        double[] r = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return r[r.length / 2];
    }

    /** A server that, per accepted connection, sends {@code lines} lines and closes. */
    static final class LineServer implements AutoCloseable {
        final ServerSocket server;
        final Thread thread;
        volatile long acceptedNanos;

        LineServer(long lines, int connections) throws Exception {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            byte[] block = block();
            thread = new Thread(() -> {
                List<Thread> senders = new ArrayList<>();
                for (int c = 0; c < connections; c++) {
                    try {
                        Socket socket = server.accept();
                        if (acceptedNanos == 0) {
                            acceptedNanos = System.nanoTime();
                        }
                        Thread sender = new Thread(() -> send(socket, block, lines));
                        sender.start();
                        senders.add(sender);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                for (Thread s : senders) {
                    try {
                        s.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }, "bench-server");
            thread.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private static void send(Socket socket, byte[] block, long lines) {
            long blockLines = block.length / LINE_BYTES;
            try (socket; OutputStream out = socket.getOutputStream()) {
                for (long sent = 0; sent < lines; sent += blockLines) {
                    int n = (int) Math.min(blockLines, lines - sent);
                    out.write(block, 0, n * LINE_BYTES);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        private static byte[] block() {
            byte[] line = new byte[LINE_BYTES];
            Arrays.fill(line, (byte) 'x');
            line[LINE_BYTES - 1] = '\n';
            byte[] block = new byte[LINE_BYTES * 10_000];
            for (int i = 0; i < 10_000; i++) {
                System.arraycopy(line, 0, block, i * LINE_BYTES, LINE_BYTES);
            }
            return block;
        }

        @Override
        public void close() throws Exception {
            server.close();
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** Counts lines and stamps the time the last expected one arrived. */
    static final class CountingSink<T> implements Sink<T> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(T element, Context ctx) {
                    if (COUNTED.incrementAndGet() == expectedLines) {
                        lastLineNanos = System.nanoTime();
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    private static double run(LineServer server, long totalLines, StreamExecutionEnvironment env) throws Exception {
        COUNTED.set(0);
        lastLineNanos = 0;
        expectedLines = totalLines;
        long cpuBefore = OS.getProcessCpuTime();
        long wallBefore = System.nanoTime();
        env.execute("bench");
        lastCores = (OS.getProcessCpuTime() - cpuBefore) / (double) (System.nanoTime() - wallBefore);
        if (COUNTED.get() != totalLines) {
            throw new IllegalStateException("expected " + totalLines + " lines, counted " + COUNTED.get());
        }
        return totalLines / ((lastLineNanos - server.acceptedNanos) / 1e9);
    }

    static double flip27(long lines, int endpoints) throws Exception {
        try (LineServer server = new LineServer(lines, endpoints)) {
            List<Endpoint> list = new ArrayList<>();
            for (int i = 0; i < endpoints; i++) {
                // The same server accepts every connection; distinct names make distinct splits.
                list.add(new Endpoint(i == 0 ? "127.0.0.1" : "localhost", server.port()));
            }
            SocketSourceSettings settings = new SocketSourceSettings(list, new byte[] {'\n'}, "UTF-8",
                    SocketSourceSettings.MalformedPolicy.KEEP, 1024 * 1024, SocketSourceSettings.OversizedPolicy.SKIP,
                    false, Duration.ofSeconds(5), 0, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ZERO, true);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.fromSource(new SocketLineSource(settings), WatermarkStrategy.noWatermarks(), "socket")
                    .setParallelism(endpoints)
                    .sinkTo(new CountingSink<>())
                    .setParallelism(endpoints);
            return run(server, lines * endpoints, env);
        }
    }

    @SuppressWarnings("deprecation")
    static double legacy(long lines) throws Exception {
        try (LineServer server = new LineServer(lines, 1)) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.socketTextStream("127.0.0.1", server.port()).sinkTo(new CountingSink<>());
            return run(server, lines, env);
        }
    }

    static double plainLoop(long lines) throws Exception {
        try (LineServer server = new LineServer(lines, 1);
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            long cpuBefore = OS.getProcessCpuTime();
            long wallBefore = System.nanoTime();
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            byte[] buffer = new byte[64 * 1024];
            byte[] pending = new byte[LINE_BYTES * 2];
            int pendingLength = 0;
            long count = 0;
            long blackhole = 0;
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                for (int i = 0; i < n; i++) {
                    byte b = buffer[i];
                    if (b == '\n') {
                        String line = new String(pending, 0, pendingLength, StandardCharsets.UTF_8);
                        blackhole += line.length();
                        pendingLength = 0;
                        count++;
                    } else {
                        pending[pendingLength++] = b;
                    }
                }
            }
            long end = System.nanoTime();
            lastCores = (OS.getProcessCpuTime() - cpuBefore) / (double) (end - wallBefore);
            if (count != lines || blackhole != lines * (LINE_BYTES - 1)) {
                throw new IllegalStateException("plain loop counted " + count);
            }
            return lines / ((end - server.acceptedNanos) / 1e9);
        }
    }
}
