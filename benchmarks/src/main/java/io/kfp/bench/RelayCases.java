package io.kfp.bench;

import io.kfp.relay.RelayJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One benchmark case, run in a JVM of its own by {@link Harness}: copies RECORDS records from the
 * input topic to the output topic (or only produces them) and exits when done.
 *
 * <p>Usage: {@code RelayCases CASE BOOTSTRAP INPUT OUTPUT RECORDS}. Cases: producer, copy-loop,
 * txn-loop-5s, relay-alo-5s, relay-eos-5s, relay-alo-1s, relay-eos-1s, streams-alo,
 * streams-eos-100ms, streams-eos-5s.
 */
public final class RelayCases {

    private RelayCases() {}

    public static void main(String[] args) throws Exception {
        String name = args[0];
        String bootstrap = args[1];
        String input = args[2];
        String output = args[3];
        long records = Long.parseLong(args[4]);
        switch (name) {
            case "producer" -> produce(bootstrap, output, records);
            case "copy-loop" -> copyLoop(bootstrap, input, output, records, null);
            case "txn-loop-5s" -> copyLoop(bootstrap, input, output, records, Duration.ofSeconds(5));
            case "relay-alo-5s" -> relay(bootstrap, input, output, "at-least-once", "5 s");
            case "relay-eos-5s" -> relay(bootstrap, input, output, "exactly-once", "5 s");
            case "relay-alo-1s" -> relay(bootstrap, input, output, "at-least-once", "1 s");
            case "relay-eos-1s" -> relay(bootstrap, input, output, "exactly-once", "1 s");
            case "ingest-job" -> ingest(bootstrap, output, records);
            case "console-producer" -> consoleProducer(bootstrap, output, records);
            case "streams-alo" -> streams(bootstrap, input, output, records, "at_least_once", 100);
            case "streams-eos-100ms" -> streams(bootstrap, input, output, records, "exactly_once_v2", 100);
            case "streams-eos-5s" -> streams(bootstrap, input, output, records, "exactly_once_v2", 5_000);
            default -> throw new IllegalArgumentException("unknown case " + name);
        }
    }

    /** The producer settings of the calibration: acks=all, linger 5 ms, 64 KiB batches. */
    static Properties producerProps(String bootstrap) {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", bootstrap);
        p.setProperty("acks", "all");
        p.setProperty("linger.ms", "5");
        p.setProperty("batch.size", String.valueOf(64 * 1024));
        return p;
    }

    /** 8-byte key, 100-byte value starting with the zero-padded sequence number. */
    static byte[] value(long seq) {
        byte[] v = new byte[100];
        java.util.Arrays.fill(v, (byte) 'v');
        byte[] digits = String.format("%012d", seq).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(digits, 0, v, 0, digits.length);
        return v;
    }

    static byte[] key(long seq) {
        return String.format("k%07d", seq % 1000).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    static void produce(String bootstrap, String topic, long records) {
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(producerProps(bootstrap), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, key(i), value(i)));
            }
            producer.flush();
        }
    }

    /**
     * One thread, consume -> produce. With a commit interval: Kafka transactions committing the
     * consumed offsets with sendOffsetsToTransaction, read_committed input.
     */
    static void copyLoop(String bootstrap, String input, String output, long records, Duration commitEvery) {
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
            p.setProperty("transactional.id", "bench-" + output);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            consumer.subscribe(List.of(input));
            if (transactional) {
                producer.initTransactions();
                producer.beginTransaction();
            }
            long copied = 0;
            long lastCommit = System.nanoTime();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            while (copied < records) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    producer.send(new ProducerRecord<>(output, null, r.timestamp(), r.key(), r.value(), r.headers()));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    copied++;
                }
                if (transactional && (System.nanoTime() - lastCommit >= commitEvery.toNanos() || copied >= records)) {
                    producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                    producer.commitTransaction();
                    lastCommit = System.nanoTime();
                    if (copied < records) {
                        producer.beginTransaction();
                    }
                }
            }
            producer.flush();
        }
    }

    /**
     * A Kafka Streams relay with byte[] serdes and two stream threads (our relay's parallelism). It
     * counts records as they pass and closes once all went through: closing commits the last
     * transaction (exactly_once_v2) or flushes (at_least_once).
     */
    static void streams(String bootstrap, String input, String output, long records, String guarantee, long commitMs)
            throws Exception {
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
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(1);
        org.apache.kafka.streams.StreamsBuilder builder = new org.apache.kafka.streams.StreamsBuilder();
        org.apache.kafka.common.serialization.Serde<byte[]> bytes = org.apache.kafka.common.serialization.Serdes.ByteArray();
        builder.stream(input, org.apache.kafka.streams.kstream.Consumed.with(bytes, bytes))
                .peek((k, v) -> {
                    if (seen.incrementAndGet() == records) {
                        all.countDown();
                    }
                })
                .to(output, org.apache.kafka.streams.kstream.Produced.with(bytes, bytes));
        try (org.apache.kafka.streams.KafkaStreams streams = new org.apache.kafka.streams.KafkaStreams(builder.build(), p)) {
            streams.start();
            all.await();
            streams.close(Duration.ofMinutes(2));
        }
    }

    /** Text lines of 100 bytes: the 12-digit sequence number, 87 'v', '\n'; generated as read. */
    static java.io.InputStream lines(long count) {
        return new java.io.InputStream() {
            private final byte[] line = new byte[100];
            private long next;
            private int pos = 100;

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
                    byte[] v = value(next++);
                    System.arraycopy(v, 0, line, 0, 99);
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

    /** The ingest job (bounded, at-least-once) reading the lines from a local socket. */
    static void ingest(String bootstrap, String output, long records) throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread feeder = new Thread(() -> {
                try (java.net.Socket socket = server.accept(); java.io.OutputStream out = socket.getOutputStream()) {
                    lines(records).transferTo(out);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, "line-feeder");
            feeder.start();
            List<String> args = List.of(
                    "--kafka.bootstrap-servers", bootstrap, "--sink.topic", output,
                    "--ingest.endpoints", "127.0.0.1:" + server.getLocalPort(), "--ingest.bounded", "true",
                    "--job.parallelism", "2", "--state.backend", "hashmap",
                    "--checkpoint.dir", "benchmarks/target/checkpoints/" + output);
            io.kfp.ingest.IngestJob.fromConfig(io.kfp.ingest.IngestJob.SPEC.configuration(args.toArray(String[]::new))).execute();
            feeder.join();
        }
    }

    /** Kafka's console producer, the same lines on its stdin, the same producer settings. */
    static void consoleProducer(String bootstrap, String output, long records) throws Exception {
        System.setIn(lines(records));
        org.apache.kafka.tools.ConsoleProducer.main(new String[] {
            "--bootstrap-server", bootstrap, "--topic", output,
            "--producer-property", "acks=all", "--producer-property", "linger.ms=5",
            "--producer-property", "batch.size=65536"});
    }

    /** The real relay job, byte-faithful path, parallelism 2, bounded to the input's end. */
    static void relay(String bootstrap, String input, String output, String guarantee, String interval) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--kafka.bootstrap-servers", bootstrap,
                "--source.topics", input, "--sink.topic", output,
                "--source.group-id", "bench-" + output, "--job.instance-id", output,
                "--source.bounded", "true", "--source.starting-offsets", "earliest",
                "--sink.delivery-guarantee", guarantee, "--checkpoint.interval", interval,
                "--job.parallelism", "2", "--state.backend", "hashmap",
                "--checkpoint.dir", "benchmarks/target/checkpoints/" + output));
        RelayJob.fromConfig(RelayJob.SPEC.configuration(args.toArray(String[]::new))).execute();
    }
}
