package io.kfp.common.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How far a job's consumer group is behind its input, in records a {@code read_committed} reader
 * would still get. The offsets alone overstate it on a transactional topic: every committed or
 * aborted transaction leaves a marker that takes an offset and holds no record, so a group that
 * has read everything commits the offset of the last marker and stays one offset "behind" per
 * partition forever (FLINK-33484), and aborted records are offsets no reader ever sees. So a gap
 * of up to {@link #COUNTED} offsets is counted record by record, reading it {@code read_committed}
 * (cheap: it is small); a longer one is shown as its offset difference, marked approximate.
 * Used by {@code kfp status} and by the local pipeline's status line.
 */
public final class ConsumerLag {

    /** Gaps up to this many offsets are counted record by record. */
    public static final long COUNTED = 10_000;

    /**
     * One input partition: the group's committed offset (-1: none), the last stable offset (the end
     * a read_committed reader sees), the high watermark (the end of the log, open transactions
     * included), and the lag in records, exact or (for long gaps) approximate.
     */
    public record Partition(TopicPartition partition, long committed, long stable, long high, long lag, boolean exact) {
        /** Offsets an open transaction holds back from read_committed readers. */
        public long heldBack() {
            return Math.max(0, high - stable);
        }
    }

    private ConsumerLag() {}

    /** The lag of {@code group} on each partition of {@code topics}, by topic and partition. */
    public static List<Partition> of(Admin admin, Properties client, String group, List<String> topics) {
        List<TopicPartition> partitions = new ArrayList<>();
        Map<String, org.apache.kafka.clients.admin.TopicDescription> described =
                await(admin.describeTopics(topics).allTopicNames(), "describe the topics " + topics);
        described.values().forEach(d -> d.partitions().forEach(p -> partitions.add(new TopicPartition(d.name(), p.partition()))));
        partitions.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        Map<TopicPartition, OffsetAndMetadata> committed =
                await(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(), "read the offsets of group " + group);
        // The high watermark first: records written between the two calls then never look held back.
        Map<TopicPartition, Long> high = ends(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> stable = ends(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> earliest = ends(admin, partitions, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED);

        // Where the group would start: its committed offset, or (none committed) the log's start.
        Map<TopicPartition, long[]> gaps = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            long from = c == null ? earliest.get(tp) : Math.max(c.offset(), earliest.get(tp));
            if (stable.get(tp) > from && stable.get(tp) - from <= COUNTED) {
                gaps.put(tp, new long[] {from, stable.get(tp)});
            }
        }
        Map<TopicPartition, Long> counted = count(client, gaps);
        List<Partition> lag = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            long from = c == null ? earliest.get(tp) : Math.max(c.offset(), earliest.get(tp));
            long offsets = Math.max(0, stable.get(tp) - from);
            Long records = offsets == 0 ? Long.valueOf(0) : counted.get(tp);
            lag.add(new Partition(tp, c == null ? -1 : c.offset(), stable.get(tp), high.get(tp), records == null ? offsets : records,
                    records != null));
        }
        return lag;
    }

    /** The records a read_committed reader gets in each [from, to) gap. */
    private static Map<TopicPartition, Long> count(Properties client, Map<TopicPartition, long[]> gaps) {
        Map<TopicPartition, Long> records = new HashMap<>();
        if (gaps.isEmpty()) {
            return records;
        }
        Properties props = new Properties();
        props.putAll(client);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "kfp-status");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(gaps.keySet());
            gaps.forEach((tp, gap) -> {
                consumer.seek(tp, gap[0]);
                records.put(tp, 0L);
            });
            List<TopicPartition> pending = new ArrayList<>(gaps.keySet());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!pending.isEmpty()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() < gaps.get(tp)[1]) {
                        records.merge(tp, 1L, Long::sum);
                    }
                }
                // A read_committed reader moves past markers and aborted records without returning them.
                for (TopicPartition tp : List.copyOf(pending)) {
                    if (consumer.position(tp) >= gaps.get(tp)[1]) {
                        pending.remove(tp);
                        consumer.pause(List.of(tp));
                    }
                }
                if (System.nanoTime() > deadline) {
                    // Not counted in time: those partitions show their offset difference instead.
                    pending.forEach(records::remove);
                    break;
                }
            }
        }
        return records;
    }

    private static Map<TopicPartition, Long> ends(Admin admin, List<TopicPartition> partitions, OffsetSpec spec, IsolationLevel isolation) {
        Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        partitions.forEach(tp -> query.put(tp, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answer =
                await(admin.listOffsets(query, new ListOffsetsOptions(isolation)).all(), "read the end offsets of " + partitions);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        answer.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    /** A Kafka call that failed: the message says what was asked; the cause is Kafka's exception. */
    public static final class KafkaCallException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        KafkaCallException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, String what) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaCallException("interrupted while waiting to " + what, e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new KafkaCallException("Kafka refused to " + what + ": " + cause, cause);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new KafkaCallException("Kafka did not answer within 60 s when asked to " + what, e);
        }
    }
}
