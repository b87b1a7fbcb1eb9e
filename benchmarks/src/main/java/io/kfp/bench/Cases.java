package io.kfp.bench;

import com.sun.management.OperatingSystemMXBean;
import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobSpec;
import io.kfp.ingest.IngestJob;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.tools.ConsoleProducer;
import org.apache.kafka.tools.consumer.ConsoleConsumer;

/**
 * One benchmark case, run in a JVM of its own by {@link Harness}.
 *
 * <p>Usage: {@code Cases CASE BOOTSTRAP INPUT LIVE OUTPUT RECORDS RESULT_FILE LIVE_RECORDS}, or
 * {@code Cases feed-lines RECORDS LIVE_RECORDS [--listen]} for a FED case's line feeder. INPUT
 * holds the pre-produced records; LIVE is an empty topic of this run into which the harness
 * produces the latency phase's records once the backlog is through. Copying cases read both and run
 * until the harness stops them; producing cases write RECORDS records to OUTPUT, then LIVE_RECORDS
 * more at {@link Harness#LIVE_RATE} per second (their latency phase), and exit; printing cases
 * print INPUT to a counting, discarding stdout and exit after RECORDS lines, writing their timings
 * to RESULT_FILE (see {@link PrintedLines}).
 */
public final class Cases {

    /** The first argument that makes this JVM a FED case's line feeder instead of a case. */
    static final String FEED_LINES = "feed-lines";

    private Cases() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals(FEED_LINES)) {
            feedLines(
                    Long.parseLong(args[1]),
                    Long.parseLong(args[2]),
                    args.length > 3 && args[3].equals("--listen"));
            return;
        }
        String name = args[0];
        String bootstrap = args[1];
        String input = args[2];
        String live = args[3];
        String output = args[4];
        long records = Long.parseLong(args[5]);
        Path result = Path.of(args[6]);
        // Producing cases run the latency phase themselves: this many paced records after the
        // backlog.
        long liveRecords = Long.parseLong(args[7]);
        switch (name) {
            case "producer" -> produce(bootstrap, output, records, liveRecords);
            case "ingest-job" -> ingest(bootstrap, output);
            case "console-producer" -> consoleProducer(bootstrap, output);
            case "copy-loop" -> copyLoop(bootstrap, List.of(input, live), output, null, 1);
            case "copy-loop-2t" -> copyLoop(bootstrap, List.of(input, live), output, null, 2);
            case "txn-loop-5s" ->
                    copyLoop(bootstrap, List.of(input, live), output, Duration.ofSeconds(5), 1);
            case "txn-loop-5s-2t" ->
                    copyLoop(bootstrap, List.of(input, live), output, Duration.ofSeconds(5), 2);
            case "streams-alo" ->
                    streams(bootstrap, List.of(input, live), output, "at_least_once", 100);
            case "streams-eos-100ms" ->
                    streams(bootstrap, List.of(input, live), output, "exactly_once_v2", 100);
            case "streams-eos-5s" ->
                    streams(bootstrap, List.of(input, live), output, "exactly_once_v2", 5_000);
            case "relay-alo-5s" ->
                    relay(bootstrap, input + "," + live, output, "at-least-once", "5 s", 2);
            case "relay-eos-5s" ->
                    relay(bootstrap, input + "," + live, output, "exactly-once", "5 s", 2);
            case "relay-alo-5s-p1" ->
                    relay(bootstrap, input + "," + live, output, "at-least-once", "5 s", 1);
            case "relay-eos-5s-p1" ->
                    relay(bootstrap, input + "," + live, output, "exactly-once", "5 s", 1);
            case "relay-eos-5s-pooling" ->
                    relay(
                            bootstrap,
                            input + "," + live,
                            output,
                            "exactly-once",
                            "5 s",
                            2,
                            "--sink.transaction-naming",
                            "pooling");
            case "relay-alo-1s" ->
                    relay(bootstrap, input + "," + live, output, "at-least-once", "1 s", 2);
            case "relay-eos-1s" ->
                    relay(bootstrap, input + "," + live, output, "exactly-once", "1 s", 2);
            case "relay-window-count" -> windowCount(bootstrap, input, output);
            case "sink-job" -> sinkJob(bootstrap, input, output, records, result, 2);
            case "sink-job-p1" -> sinkJob(bootstrap, input, output, records, result, 1);
            case "console-consumer" -> consoleConsumer(bootstrap, input, records, result);
            default -> committingEvery(name, bootstrap, input + "," + live, output);
        }
    }

    /**
     * The exactly-once cases of the commit-interval matrix ({@link Harness#INTERVAL_CASES}): {@code
     * relay-eos-INTERVAL[-p1][-pooling]}, {@code streams-eos-INTERVAL} and {@code
     * txn-loop-INTERVAL[-2t]}, INTERVAL as {@code 100ms} or {@code 5s}.
     */
    static void committingEvery(String name, String bootstrap, String topics, String output)
            throws Exception {
        Matcher m = INTERVAL_CASE.matcher(name);
        if (!m.matches()) {
            throw new IllegalArgumentException("unknown case " + name);
        }
        Duration every =
                m.group(3).equals("ms")
                        ? Duration.ofMillis(Long.parseLong(m.group(2)))
                        : Duration.ofSeconds(Long.parseLong(m.group(2)));
        String variant = m.group(4) == null ? "" : m.group(4);
        List<String> inputs = List.of(topics.split(","));
        switch (m.group(1)) {
            case "relay-eos" -> {
                int parallelism = variant.contains("-p1") ? 1 : 2;
                // Named either way, so the case means the same whichever naming is the default.
                List<String> more =
                        List.of(
                                "--sink.transaction-naming",
                                variant.contains("-pooling") ? "pooling" : "incrementing");
                relay(
                        bootstrap,
                        topics,
                        output,
                        "exactly-once",
                        every.toMillis() + " ms",
                        parallelism,
                        more.toArray(String[]::new));
            }
            case "streams-eos" ->
                    streams(bootstrap, inputs, output, "exactly_once_v2", every.toMillis());
            case "txn-loop" ->
                    copyLoop(bootstrap, inputs, output, every, variant.contains("-2t") ? 2 : 1);
            default -> throw new IllegalArgumentException("unknown case " + name);
        }
    }

    static final Pattern INTERVAL_CASE =
            Pattern.compile(
                    "(relay-eos|streams-eos|txn-loop)-(\\d+)(ms|s)((?:-p1|-2t)?(?:-pooling)?)");

    /** The producer settings of the calibration: acks=all, linger 5 ms, 64 KiB batches. */
    static Properties producerProps(String bootstrap) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrap);
        p.setProperty("acks", "all");
        p.setProperty("linger.ms", "5");
        p.setProperty("batch.size", String.valueOf(64 * 1024));
        return p;
    }

    /** 100-byte value starting with the 12-digit zero-padded sequence number, then 'v's. */
    static byte[] value(long seq) {
        byte[] v = new byte[100];
        Arrays.fill(v, (byte) 'v');
        for (int i = 11; i >= 0; i--, seq /= 10) {
            v[i] = (byte) ('0' + seq % 10);
        }
        return v;
    }

    /** 8-byte key: one of 1,000. */
    static byte[] key(long seq) {
        return String.format("k%07d", seq % 1000).getBytes(StandardCharsets.US_ASCII);
    }

    /** The sequence number a value or printed line starts with, or -1. */
    static long sequence(byte[] bytes, int from) {
        if (bytes.length < from + 12) {
            return -1;
        }
        long seq = 0;
        for (int i = from; i < from + 12; i++) {
            int digit = bytes[i] - '0';
            if (digit < 0 || digit > 9) {
                return -1;
            }
            seq = seq * 10 + digit;
        }
        return seq;
    }

    /**
     * RECORDS records as fast as the producer takes them, then (once all are acknowledged) LIVE
     * paced ones.
     */
    static void produce(String bootstrap, String topic, long records, long live) {
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        producerProps(bootstrap),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, key(i), value(i)));
            }
            producer.flush();
            sendPaced(producer, topic, records, live);
        }
    }

    /**
     * COUNT records at {@link Harness#LIVE_RATE} per second, sequence numbers from FROM on,
     * timestamped at send.
     */
    static void sendPaced(
            KafkaProducer<byte[], byte[]> producer, String topic, long from, long count) {
        long start = System.nanoTime();
        for (long i = 0; i < count; i++) {
            pace(start, i);
            producer.send(new ProducerRecord<>(topic, key(from + i), value(from + i)));
        }
        producer.flush();
    }

    /** Waits until the i-th paced record is due. */
    private static void pace(long startNanos, long i) {
        long wait = startNanos + i * 1_000_000_000L / Harness.LIVE_RATE - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    /**
     * THREADS threads, each consume -> produce with a consumer and producer of its own, until
     * stopped: the like of our relay at parallelism THREADS. One thread subscribes; with more,
     * thread t is assigned the partitions p with p % THREADS == t (as Flink's source assigns its
     * splits: a rebalance would hand a partition over without committed offsets, and the plain loop
     * commits none, so it would copy records twice). With a commit interval: Kafka transactions
     * committing the consumed offsets with sendOffsetsToTransaction, read_committed input, a
     * transactional id per thread. A thread that fails ends the JVM, so the harness sees it.
     */
    static void copyLoop(
            String bootstrap, List<String> inputs, String output, Duration commitEvery, int threads)
            throws InterruptedException {
        List<Thread> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String id = "bench-" + output + (threads == 1 ? "" : "-" + t);
            int thread = t;
            Thread loop =
                    new Thread(
                            () -> {
                                try {
                                    copyLoop(
                                            bootstrap,
                                            inputs,
                                            output,
                                            commitEvery,
                                            id,
                                            threads == 1 ? -1 : thread,
                                            threads);
                                } catch (RuntimeException e) {
                                    e.printStackTrace();
                                    Runtime.getRuntime().halt(1);
                                }
                            },
                            "copy-loop-" + t);
            loop.start();
            loops.add(loop);
        }
        for (Thread loop : loops) {
            loop.join();
        }
    }

    /**
     * @param thread this loop's index among THREADS for a static assignment, -1 to subscribe
     */
    private static void copyLoop(
            String bootstrap,
            List<String> inputs,
            String output,
            Duration commitEvery,
            String transactionalId,
            int thread,
            int threads) {
        Properties c = new Properties();
        c.setProperty("bootstrap.servers", bootstrap);
        c.setProperty("group.id", "bench-" + output);
        c.setProperty("auto.offset.reset", "earliest");
        c.setProperty("enable.auto.commit", "false");
        c.setProperty("isolation.level", "read_committed");
        c.setProperty("max.poll.records", "5000");
        Properties p = producerProps(bootstrap);
        boolean transactional = commitEvery != null;
        if (transactional) {
            p.setProperty("transactional.id", transactionalId);
        }
        try (KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(
                                c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(
                                p, new ByteArraySerializer(), new ByteArraySerializer())) {
            if (thread < 0) {
                consumer.subscribe(inputs);
            } else {
                List<TopicPartition> mine = new ArrayList<>();
                for (String topic : inputs) {
                    consumer.partitionsFor(topic).stream()
                            .filter(info -> info.partition() % threads == thread)
                            .forEach(info -> mine.add(new TopicPartition(topic, info.partition())));
                }
                consumer.assign(mine);
            }
            if (transactional) {
                producer.initTransactions();
                producer.beginTransaction();
            }
            long lastCommit = System.nanoTime();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            while (true) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    producer.send(
                            new ProducerRecord<>(
                                    output, null, r.timestamp(), r.key(), r.value(), r.headers()));
                    offsets.put(
                            new TopicPartition(r.topic(), r.partition()),
                            new OffsetAndMetadata(r.offset() + 1));
                }
                if (transactional && System.nanoTime() - lastCommit >= commitEvery.toNanos()) {
                    if (!offsets.isEmpty()) {
                        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                    }
                    producer.commitTransaction();
                    offsets.clear();
                    lastCommit = System.nanoTime();
                    producer.beginTransaction();
                }
            }
        }
    }

    /**
     * A Kafka Streams relay with byte[] serdes and two stream threads (our relay's parallelism),
     * until stopped.
     */
    static void streams(
            String bootstrap, List<String> inputs, String output, String guarantee, long commitMs)
            throws InterruptedException {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrap);
        p.setProperty("application.id", "bench-" + output);
        p.setProperty("processing.guarantee", guarantee);
        p.setProperty("commit.interval.ms", String.valueOf(commitMs));
        p.setProperty("num.stream.threads", "2");
        p.setProperty("state.dir", "benchmarks/target/streams-state");
        p.setProperty("auto.offset.reset", "earliest");
        p.setProperty("producer.linger.ms", "5");
        p.setProperty("producer.batch.size", String.valueOf(64 * 1024));
        StreamsBuilder builder = new StreamsBuilder();
        Serde<byte[]> bytes = Serdes.ByteArray();
        builder.stream(inputs, Consumed.with(bytes, bytes)).to(output, Produced.with(bytes, bytes));
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.start();
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * Text lines of 100 bytes (the 12-digit sequence number, 87 'v', '\n'), sequence numbers FROM
     * to FROM + COUNT - 1, generated as read; with {@code paced}, each line is handed out only when
     * due at {@link Harness#LIVE_RATE} per second (from the first read on).
     */
    static InputStream lines(long from, long count, boolean paced) {
        return new InputStream() {
            private byte[] line = new byte[100];
            private long next;
            private int pos = 100;
            private long start;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos == 100) {
                    if (next == count) {
                        return -1;
                    }
                    if (paced) {
                        if (next == 0) {
                            start = System.nanoTime();
                        }
                        pace(start, next);
                    }
                    line = value(from + next++);
                    line[99] = '\n';
                    pos = 0;
                }
                int n = Math.min(len, 100 - pos);
                System.arraycopy(line, pos, b, off, n);
                pos += n;
                return n;
            }
        };
    }

    /**
     * A FED case's lines (see {@link Harness.Kind#FED}): RECORDS lines as fast as they are taken,
     * then LIVE more paced at {@link Harness#LIVE_RATE} per second, one write per line. To stdout
     * (piped into the case's stdin), or with {@code listen} to the one connection accepted on a
     * free loopback port, which it prints first.
     */
    static void feedLines(long records, long live, boolean listen) throws IOException {
        if (!listen) {
            writeLines(records, live, new FileOutputStream(FileDescriptor.out));
            return;
        }
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            System.out.println(server.getLocalPort());
            System.out.flush();
            try (Socket socket = server.accept()) {
                writeLines(records, live, socket.getOutputStream());
            }
        }
    }

    private static void writeLines(long records, long live, OutputStream target)
            throws IOException {
        // Buffered: the generator hands out one line per read, and a write per line would make the
        // feeder, not the case, the bottleneck.
        try (OutputStream out = new BufferedOutputStream(target, 64 * 1024)) {
            lines(0, records, false).transferTo(out);
            out.flush();
            InputStream paced = lines(records, live, true);
            byte[] line = new byte[100];
            for (int n; (n = paced.read(line, 0, line.length)) > 0; ) {
                out.write(line, 0, n);
                out.flush();
            }
        }
    }

    /**
     * The ingest job (bounded, at-least-once) reading the lines from the feeder's loopback socket
     * ({@code bench.feeder}).
     */
    static void ingest(String bootstrap, String output) throws Exception {
        String[] args = {
            "--kafka.bootstrap-servers",
            bootstrap,
            "--sink.topic",
            output,
            "--socket.endpoints",
            System.getProperty("bench.feeder"),
            "--socket.bounded",
            "true",
            "--job.parallelism",
            "2",
            "--state.backend",
            "hashmap",
            "--checkpoint.dir",
            "benchmarks/target/checkpoints/" + output
        };
        untilItEnds(IngestJob.SPEC, args);
    }

    /**
     * Kafka's console producer, the same lines on its stdin (piped from the feeder), the same
     * producer settings.
     */
    static void consoleProducer(String bootstrap, String output) throws Exception {
        ConsoleProducer.main(
                new String[] {
                    "--bootstrap-server",
                    bootstrap,
                    "--topic",
                    output,
                    "--producer-property",
                    "acks=all",
                    "--producer-property",
                    "linger.ms=5",
                    "--producer-property",
                    "batch.size=65536"
                });
    }

    /** The real relay job, byte-faithful path, until stopped. */
    static void relay(
            String bootstrap,
            String topics,
            String output,
            String guarantee,
            String interval,
            int parallelism,
            String... more)
            throws Exception {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                bootstrap,
                                "--source.topics",
                                topics,
                                "--sink.topic",
                                output,
                                "--source.group-id",
                                "bench-" + output,
                                "--job.instance-id",
                                output,
                                "--source.starting-offsets",
                                "earliest",
                                "--sink.delivery-guarantee",
                                guarantee,
                                "--checkpoint.interval",
                                interval,
                                "--job.parallelism",
                                String.valueOf(parallelism),
                                "--state.backend",
                                "hashmap",
                                "--checkpoint.dir",
                                "benchmarks/target/checkpoints/" + output));
        args.addAll(List.of(more));
        runRelay(args);
    }

    /**
     * The relay's window-count transform as deployed: counts per key in 1-minute event-time windows
     * on RocksDB, exactly-once, 5 s checkpoints; bounded, so every window fires at the input's end.
     */
    static void windowCount(String bootstrap, String input, String output) throws Exception {
        runRelay(
                List.of(
                        "--kafka.bootstrap-servers",
                        bootstrap,
                        "--source.topics",
                        input,
                        "--sink.topic",
                        output,
                        "--source.group-id",
                        "bench-" + output,
                        "--job.instance-id",
                        output,
                        "--source.starting-offsets",
                        "earliest",
                        "--source.bounded",
                        "true",
                        "--relay.transform",
                        "window-count",
                        "--relay.window-size",
                        "1 min",
                        "--sink.delivery-guarantee",
                        "exactly-once",
                        "--checkpoint.interval",
                        "5 s",
                        "--job.parallelism",
                        "2",
                        "--state.backend",
                        "rocksdb",
                        "--checkpoint.dir",
                        "benchmarks/target/checkpoints/" + output));
    }

    private static void runRelay(List<String> args) throws Exception {
        untilItEnds(RelayJob.SPEC, args.toArray(String[]::new));
    }

    /**
     * The job's configuration from {@code args} alone, validated; its workflow run until it ends.
     */
    private static void untilItEnds(JobSpec spec, String... args) throws Exception {
        JobEntryPoint.UNTIL_IT_ENDS.launch(spec, spec.configuration(args));
    }

    /** The real sink job printing the input (values only, its default) to a counting stdout. */
    static void sinkJob(
            String bootstrap,
            String input,
            String output,
            long records,
            Path result,
            int parallelism)
            throws Exception {
        System.setOut(new PrintStream(new PrintedLines(records, result), false));
        String[] args = {
            "--kafka.bootstrap-servers",
            bootstrap,
            "--source.topics",
            input,
            "--source.group-id",
            "bench-" + output,
            "--job.instance-id",
            output,
            "--source.starting-offsets",
            "earliest",
            "--job.parallelism",
            String.valueOf(parallelism),
            "--state.backend",
            "hashmap",
            "--checkpoint.dir",
            "benchmarks/target/checkpoints/" + output
        };
        untilItEnds(SinkJob.SPEC, args);
    }

    /** Kafka's console consumer printing the same input (values) to the same counting stdout. */
    static void consoleConsumer(String bootstrap, String input, long records, Path result)
            throws Exception {
        System.setOut(new PrintStream(new PrintedLines(records, result), false));
        ConsoleConsumer.main(
                new String[] {
                    "--bootstrap-server",
                    bootstrap,
                    "--topic",
                    input,
                    "--from-beginning",
                    "--isolation-level",
                    "read_committed"
                });
    }

    /**
     * A discarding stdout that checks what is printed: each line must start with a sequence number
     * below RECORDS, none twice. After the first line, at the middle's ends ({@link
     * Harness#MIDDLE_FROM} and {@link Harness#MIDDLE_TO} of RECORDS) and after RECORDS lines it
     * notes the time and this JVM's CPU time; after the last it writes them to the result file
     * ("firstMillis doneMillis firstCpu doneCpu middleLines middleNanos middleCpu" and the middle's
     * CPU seconds of each {@link ThreadCpu.Group}, by ordinal) and halts the JVM.
     */
    static final class PrintedLines extends OutputStream {
        private final long records;
        private final Path result;
        private final BitSet seen;
        private final byte[] head = new byte[12];
        private int column;
        private long lines;
        private long firstMillis;
        private double firstCpu;
        private final long middleFrom;
        private final long middleTo;
        private long middleFromNanos;
        private double middleFromCpu;
        private double[] middleFromThreads = ThreadCpu.none();
        private long middleToNanos;
        private double middleToCpu;
        private double[] middleToThreads = ThreadCpu.none();
        private final ThreadCpu threadCpu = ThreadCpu.self();
        private boolean finished;

        PrintedLines(long records, Path result) {
            this.records = records;
            this.result = result;
            this.middleFrom = Math.max(1, (long) Math.ceil(Harness.MIDDLE_FROM * records));
            this.middleTo =
                    Math.max(middleFrom + 1, (long) Math.floor(Harness.MIDDLE_TO * records));
            this.seen = new BitSet(Math.toIntExact(records));
        }

        @Override
        public synchronized void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int end = off + len;
            for (int i = off; i < end && !finished; i++) {
                byte c = b[i];
                if (c == '\n') {
                    endOfLine();
                } else if (column < 12) {
                    head[column++] = c;
                } else {
                    // The rest of the line up to its end: nothing to check there.
                    int next = i;
                    while (next < end && b[next] != '\n') {
                        next++;
                    }
                    column += next - i;
                    i = next - 1;
                }
            }
        }

        private void endOfLine() {
            long seq = column < 12 ? -1 : sequence(head, 0);
            column = 0;
            if (seq < 0 || seq >= records) {
                fail("printed a line without a sequence number below " + records);
            }
            if (seen.get((int) seq)) {
                fail("printed sequence number " + seq + " twice");
            }
            seen.set((int) seq);
            if (++lines == 1) {
                firstMillis = System.currentTimeMillis();
                firstCpu = cpuSeconds();
            }
            if (lines == middleFrom) {
                middleFromNanos = System.nanoTime();
                middleFromCpu = cpuSeconds();
                middleFromThreads = threadCpu.cpuSeconds();
            }
            if (lines == middleTo) {
                middleToNanos = System.nanoTime();
                middleToCpu = cpuSeconds();
                middleToThreads = threadCpu.cpuSeconds();
            }
            if (lines == records) {
                try {
                    Files.writeString(
                            result,
                            firstMillis
                                    + " "
                                    + System.currentTimeMillis()
                                    + " "
                                    + firstCpu
                                    + " "
                                    + cpuSeconds()
                                    + " "
                                    + (middleTo - middleFrom)
                                    + " "
                                    + (middleToNanos - middleFromNanos)
                                    + " "
                                    + (middleToCpu - middleFromCpu)
                                    + threadsLine()
                                    + "\n");
                } catch (IOException e) {
                    fail("cannot write " + result + ": " + e);
                }
                finished = true;
                exit();
            }
        }

        /** The middle's CPU seconds of each kind of thread, each after a space. */
        private String threadsLine() {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < middleToThreads.length; i++) {
                line.append(' ').append(middleToThreads[i] - middleFromThreads[i]);
            }
            return line.toString();
        }

        /**
         * Exits the JVM from a thread of its own (the printing thread may be one the shutdown waits
         * for); with a Flight Recorder recording an orderly exit writes it, else halt at once.
         */
        private static void exit() {
            if (!Boolean.getBoolean("bench.jfr")) {
                Runtime.getRuntime().halt(0);
            }
            Thread exit = new Thread(() -> System.exit(0), "bench-exit");
            exit.setDaemon(true);
            exit.start();
        }

        private static double cpuSeconds() {
            return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                            .getProcessCpuTime()
                    / 1e9;
        }

        private static void fail(String message) {
            System.err.println("FAILED: " + message);
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
    }
}
