package io.kfp.bench;

import com.sun.management.OperatingSystemMXBean;
import io.kfp.common.socket.Endpoint;
import io.kfp.common.socket.SocketLineSource;
import io.kfp.common.socket.SocketSourceSettings;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
 * Lines per second of the ingest job's socket source, beside the legacy {@code socketTextStream}
 * (the thing it replaces: used here only as the baseline) and a plain Java loop reading and
 * splitting the same bytes (the ceiling). Each case reads LINES lines of 100 bytes over loopback
 * into a sink that only counts; cases alternate, each runs ROUNDS times; the clock runs from the
 * first line counted to the last. The lines come from a {@link LineFeeder} process, so "cores busy"
 * is this JVM's: the source's, not the sender's.
 *
 * <p>Usage: {@code benchmarks/run socket-source [lines] [rounds]}.
 */
public final class SocketSourceBenchmark {

    static final int LINE_BYTES = 100; // 99 characters + '\\n'
    private static final AtomicLong COUNTED = new AtomicLong();
    private static volatile long firstLineNanos;
    private static volatile long lastLineNanos;
    private static volatile long expectedLines;

    private SocketSourceBenchmark() {}

    public static void main(String[] args) throws Exception {
        long lines = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Configuration config = new Configuration();
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(config)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(4)
                                .build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, 1);
        Map<String, List<Double>> results = new LinkedHashMap<>();
        Map<String, List<Double>> cores = new LinkedHashMap<>();
        long started = System.nanoTime();
        try {
            for (int round = 0; round < rounds; round++) {
                record(results, cores, PLAIN, plainLoop(lines));
                record(results, cores, LEGACY, legacy(lines));
                record(results, cores, ONE, flip27(lines, 1));
                record(results, cores, TWO, flip27(lines, 2));
            }
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        String md = markdown(results, cores, lines, rounds, seconds);
        Path dir = Path.of("benchmarks", "results");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("socket-source.md"), md);
        ReadmeSection.replace(Path.of("benchmarks", "README.md"), "socket-results", md);
        System.out.println();
        System.out.print(md);
    }

    private static final String PLAIN = "plain Java loop (ceiling)";
    private static final String LEGACY = "legacy `socketTextStream`";
    private static final String ONE = "`SocketLineSource`, 1 endpoint";
    private static final String TWO = "`SocketLineSource`, 2 endpoints";

    /** The run's table and target ratios, as benchmarks/results/socket-source.md holds them. */
    static String markdown(
            Map<String, List<Double>> results,
            Map<String, List<Double>> cores,
            long lines,
            int rounds,
            double seconds) {
        StringBuilder md = new StringBuilder();
        md.append(
                String.format(
                        Locale.ROOT,
                        "`benchmarks/run socket-source %d %d`: %,d lines of %d bytes per endpoint,"
                                + " %d rounds, median [min, max]; the run took %.0f s.%n%n",
                        lines,
                        rounds,
                        lines,
                        LINE_BYTES,
                        rounds,
                        seconds));
        md.append(
                "| case | lines/s | cores busy (the benchmark's JVM; the feeder not counted) |\n");
        md.append("|---|---|---|\n");
        results.forEach(
                (name, rates) -> {
                    double[] r = sorted(rates);
                    double[] c = sorted(cores.get(name));
                    md.append(
                            String.format(
                                    Locale.ROOT,
                                    "| %s | %,.0f [%,.0f, %,.0f] | %.1f-%.1f |%n",
                                    name,
                                    r[r.length / 2],
                                    r[0],
                                    r[r.length - 1],
                                    c[0],
                                    c[c.length - 1]));
                });
        double plain = median(results.get(PLAIN));
        double legacy = median(results.get(LEGACY));
        double one = median(results.get(ONE));
        double two = median(results.get(TWO));
        md.append(
                String.format(
                        Locale.ROOT,
                        "%n`SocketLineSource` / legacy = %s; / plain loop = %s;"
                                + " 2 endpoints / 1 endpoint = %s.%n",
                        target(one / legacy, 1.0),
                        target(one / plain, 0.7),
                        target(two / one, 1.6)));
        return md.toString();
    }

    private static String target(double ratio, double target) {
        return ratio >= target
                ? String.format(Locale.ROOT, "%.2fx (target >= %.1fx: met)", ratio, target)
                : String.format(Locale.ROOT, "**%.2fx (target >= %.1fx: missed)**", ratio, target);
    }

    private static double[] sorted(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    private static void record(
            Map<String, List<Double>> results,
            Map<String, List<Double>> cores,
            String name,
            double linesPerSecond) {
        results.computeIfAbsent(name, n -> new ArrayList<>()).add(linesPerSecond);
        cores.computeIfAbsent(name, n -> new ArrayList<>()).add(lastCores);
        System.out.printf(
                "  %-32s %,12.0f lines/s, %.1f cores busy (this JVM; the feeder is a process of its own)%n",
                name, linesPerSecond, lastCores);
    }

    private static double lastCores;
    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private static double median(List<Double> values) {
        double[] r = sorted(values);
        return r[r.length / 2];
    }

    /**
     * The line server: a {@link LineFeeder} process, so its sending costs the benchmark's JVM
     * nothing (with the sender in this JVM, "two endpoints vs one" measured the sender as much as
     * the source). Stopped by its PID when closed.
     */
    static final class LineServer implements AutoCloseable {
        /**
         * The feeder running now, killed if the benchmark is stopped (Ctrl-C) so it cannot outlive
         * it.
         */
        private static volatile Process running;

        static {
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(
                                    () -> {
                                        Process p = running;
                                        if (p != null) {
                                            p.destroyForcibly();
                                        }
                                    },
                                    "stop-feeder"));
        }

        private final Process process;
        private final int port;

        LineServer(long lines, int connections) throws Exception {
            String javaCommand = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process =
                    new ProcessBuilder(
                                    javaCommand,
                                    "-Xmx256m",
                                    "-cp",
                                    System.getProperty("java.class.path"),
                                    LineFeeder.class.getName(),
                                    String.valueOf(lines),
                                    String.valueOf(connections))
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start();
            running = process;
            String first =
                    new BufferedReader(
                                    new InputStreamReader(
                                            process.getInputStream(), StandardCharsets.US_ASCII))
                            .readLine();
            if (first == null) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        "the line feeder (pid "
                                + process.pid()
                                + ") exited before naming its port");
            }
            port = Integer.parseInt(first.trim());
        }

        int port() {
            return port;
        }

        @Override
        public void close() throws Exception {
            boolean finished = process.waitFor(30, TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly().waitFor();
            }
            running = null;
            if (!finished) {
                throw new IllegalStateException(
                        "the line feeder (pid "
                                + process.pid()
                                + ") had not finished 30 s after the run");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(
                        "the line feeder exited with " + process.exitValue());
            }
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
                    long counted = COUNTED.incrementAndGet();
                    if (counted == 1) {
                        firstLineNanos = System.nanoTime();
                    }
                    if (counted == expectedLines) {
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

    private static double run(LineServer server, long totalLines, StreamExecutionEnvironment env)
            throws Exception {
        COUNTED.set(0);
        firstLineNanos = 0;
        lastLineNanos = 0;
        expectedLines = totalLines;
        long cpuBefore = OS.getProcessCpuTime();
        long wallBefore = System.nanoTime();
        env.execute("bench");
        lastCores =
                (OS.getProcessCpuTime() - cpuBefore) / (double) (System.nanoTime() - wallBefore);
        if (COUNTED.get() != totalLines) {
            throw new IllegalStateException(
                    "expected " + totalLines + " lines, counted " + COUNTED.get());
        }
        return (totalLines - 1) / ((lastLineNanos - firstLineNanos) / 1e9);
    }

    static double flip27(long lines, int endpoints) throws Exception {
        try (LineServer server = new LineServer(lines, endpoints)) {
            List<Endpoint> list = new ArrayList<>();
            for (int i = 0; i < endpoints; i++) {
                // The same server accepts every connection; distinct names make distinct splits.
                list.add(new Endpoint(i == 0 ? "127.0.0.1" : "localhost", server.port()));
            }
            SocketSourceSettings settings =
                    new SocketSourceSettings(
                            list,
                            new byte[] {'\n'},
                            "UTF-8",
                            SocketSourceSettings.MalformedPolicy.KEEP,
                            1024 * 1024,
                            SocketSourceSettings.OversizedPolicy.SKIP,
                            false,
                            Duration.ofSeconds(5),
                            0,
                            Duration.ofMillis(100),
                            Duration.ofSeconds(1),
                            Duration.ZERO,
                            true);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.fromSource(
                            new SocketLineSource(settings),
                            WatermarkStrategy.noWatermarks(),
                            "socket")
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
            long first = 0;
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                for (int i = 0; i < n; i++) {
                    byte b = buffer[i];
                    if (b == '\n') {
                        String line = new String(pending, 0, pendingLength, StandardCharsets.UTF_8);
                        blackhole += line.length();
                        pendingLength = 0;
                        if (count++ == 0) {
                            first = System.nanoTime();
                        }
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
            return (lines - 1) / ((end - first) / 1e9);
        }
    }
}
