package io.kfp.deploy.lab.drill;

import io.kfp.deploy.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the output with read_committed: what each sequence number of the {@link SequenceProducer}
 * is (seen, duplicated, out of order per key), and when each partition last moved.
 */
final class OutputObserver implements Runnable {
    private final Properties kafkaClient;
    private final String topic;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final BitSet seen = new BitSet();
    private long duplicates;
    private long misordered;
    private long strangers;
    private final long[] lastOfKey = new long[SequenceProducer.KEYS];

    /** Per output partition, the largest record timestamp read. */
    private final Map<Integer, Long> maxTimestamp = new ConcurrentHashMap<>();

    /**
     * Per injection time (epoch ms): the arrival times, per output partition, of the first record
     * with a timestamp after it.
     */
    private final Map<Long, Map<Integer, Long>> flowing = new ConcurrentHashMap<>();

    /**
     * @param kafkaClient the client settings of the lab's brokers; the consumer's own are added
     * @param topic the relay's output
     */
    OutputObserver(Properties kafkaClient, String topic) {
        this.kafkaClient = kafkaClient;
        this.topic = topic;
    }

    @Override
    public void run() {
        Arrays.fill(lastOfKey, -1);
        Properties props = new Properties();
        props.putAll(kafkaClient);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // A fetch answered once 16 KB are there or after 100 ms, not for every record: the times
        // it reports are at most 0.1 s late.
        props.setProperty(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "16384");
        props.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofMinutes(1))
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    record(r);
                }
            }
        }
    }

    private synchronized void record(ConsumerRecord<byte[], byte[]> r) {
        long now = System.currentTimeMillis();
        maxTimestamp.merge(r.partition(), r.timestamp(), Math::max);
        for (Map.Entry<Long, Map<Integer, Long>> since : flowing.entrySet()) {
            if (r.timestamp() > since.getKey()) {
                since.getValue().putIfAbsent(r.partition(), now);
            }
        }
        String value = new String(r.value(), StandardCharsets.UTF_8);
        String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
        if (!value.startsWith("seq-") || !key.startsWith("key-")) {
            strangers++;
            return;
        }
        long seq = Long.parseLong(value.substring(4));
        int k = Integer.parseInt(key.substring(4));
        if (seen.get((int) seq)) {
            duplicates++;
        }
        seen.set((int) seq);
        if (seq < lastOfKey[k]) {
            misordered++;
        }
        lastOfKey[k] = Math.max(lastOfKey[k], seq);
    }

    /**
     * Whether every output partition has a committed record produced after {@code since} (epoch
     * ms). The first call for a {@code since} starts watching for it.
     */
    boolean flowingSince(long since) {
        Map<Integer, Long> arrivals =
                flowing.computeIfAbsent(
                        since,
                        s -> {
                            Map<Integer, Long> already = new ConcurrentHashMap<>();
                            maxTimestamp.forEach(
                                    (p, ts) -> {
                                        if (ts > s) {
                                            already.put(p, System.currentTimeMillis());
                                        }
                                    });
                            return already;
                        });
        return arrivals.size() >= Topics.PARTITIONS;
    }

    /** When the last partition started flowing again after {@code since}. */
    long flowingAt(long since) {
        return flowing.get(since).values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    synchronized long distinct() {
        return seen.cardinality();
    }

    /**
     * What the output holds of the first {@code produced} sequence numbers, counted at one moment.
     *
     * @param strangers records that are not the producer's: no {@code seq-} value or no {@code
     *     key-} key
     */
    record Counts(long distinct, long duplicates, long missing, long misordered, long strangers) {}

    synchronized Counts counts(long produced) {
        return new Counts(
                seen.cardinality(),
                duplicates,
                produced - seen.get(0, (int) produced).cardinality(),
                misordered,
                strangers);
    }

    void stop() {
        running.set(false);
    }
}
