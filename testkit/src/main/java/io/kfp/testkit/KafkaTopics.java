package io.kfp.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Producing to and reading whole topics in tests. */
public final class KafkaTopics {

    private KafkaTopics() {}

    public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("acks", "all");
        props.setProperty("linger.ms", "5");
        // Test data must arrive once and in order. An idempotent producer whose first request to a
        // just-created partition meets NOT_LEADER_OR_FOLLOWER was seen here to loop on
        // OUT_OF_ORDER_SEQUENCE_NUMBER; one request in flight keeps order without it.
        props.setProperty("enable.idempotence", "false");
        props.setProperty("max.in.flight.requests.per.connection", "1");
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Produces every record and waits until all are acknowledged. */
    public static void produce(String bootstrap, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            List<Future<?>> acks = new ArrayList<>(records.size());
            for (ProducerRecord<byte[], byte[]> r : records) {
                acks.add(producer.send(r));
            }
            producer.flush();
            for (Future<?> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Every record of {@code topic} visible at the given isolation level, in partition order: reads
     * until each partition's end offset (for read_committed, the last stable offset).
     */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(
            String bootstrap, String topic, boolean committedOnly) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("isolation.level", committedOnly ? "read_committed" : "read_uncommitted");
        props.setProperty("enable.auto.commit", "false");
        props.setProperty("auto.offset.reset", "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!reachedEnd(consumer, end) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            if (!reachedEnd(consumer, end)) {
                throw new AssertionError(
                        "could not read " + topic + " to its end " + end + " within 60 s");
            }
            return records;
        }
    }

    private static boolean reachedEnd(
            KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), Duration.ofSeconds(30)) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * How many records of {@code topic} at offsets partition -> [from, to) are visible at the given
     * isolation level (read_uncommitted: all; read_committed: those of committed transactions).
     */
    public static long count(
            String bootstrap, String topic, Map<Integer, long[]> ranges, boolean committedOnly) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("isolation.level", committedOnly ? "read_committed" : "read_uncommitted");
        props.setProperty("enable.auto.commit", "false");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Map<TopicPartition, Long> end = new HashMap<>();
            ranges.forEach((p, range) -> end.put(new TopicPartition(topic, p), range[1]));
            consumer.assign(end.keySet());
            ranges.forEach((p, range) -> consumer.seek(new TopicPartition(topic, p), range[0]));
            long count = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!reachedEnd(consumer, end) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        count++;
                    }
                }
            }
            if (!reachedEnd(consumer, end)) {
                throw new AssertionError("could not read " + topic + " up to " + end + " in 60 s");
            }
            return count;
        }
    }

    /** Committed end offsets per partition (the last stable offset for read_committed). */
    public static Map<Integer, Long> endOffsets(
            String bootstrap, String topic, boolean committedOnly) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("isolation.level", committedOnly ? "read_committed" : "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            Map<Integer, Long> result = new HashMap<>();
            consumer.endOffsets(partitions, Duration.ofSeconds(30))
                    .forEach((tp, o) -> result.put(tp.partition(), o));
            return result;
        }
    }
}
