package io.kfp.ops.offsets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a job's consumer group is behind its input, in records a {@code read_committed} reader
 * would still get. The offsets alone overstate it on a transactional topic: every committed or
 * aborted transaction leaves a marker that takes an offset and holds no record, so a group that has
 * read everything commits the offset of the last marker and stays one offset "behind" per partition
 * forever (FLINK-33484), and aborted records are offsets no reader ever sees. So a gap of up to
 * {@link #COUNTED} offsets is counted record by record, reading it {@code read_committed} (cheap:
 * it is small); a longer one is shown as its offset difference, marked approximate. Used by {@code
 * kfp status} and by the local pipeline's status line.
 */
public final class ConsumerLag {

    /**
     * Gaps of up to this many offsets in all (over every partition) are counted record by record:
     * about 10 MB of 100-byte records, well under a second, so a 2 s screen stays cheap.
     */
    public static final long COUNTED = 100_000;

    /**
     * The lag of a partition the group has committed no offset for: where it starts is the job's
     * choice (earliest, latest).
     */
    public static final long UNKNOWN = -1;

    /**
     * One input partition: the group's committed offset (-1: none), the last stable offset (the end
     * a read_committed reader sees), the high watermark (the end of the log, open transactions
     * included), and the lag in records, exact or (for long gaps) approximate; {@link #UNKNOWN}
     * while the group has committed nothing there.
     */
    public record Partition(
            TopicPartition partition,
            long committed,
            long stable,
            long high,
            long lag,
            boolean exact) {
        /** Offsets an open transaction holds back from read_committed readers. */
        public long heldBack() {
            return Math.max(0, high - stable);
        }
    }

    private ConsumerLag() {}

    /** A partition's last stable offset and high watermark. */
    public record Stability(TopicPartition partition, long stable, long high) {
        /** Offsets an open transaction holds back from read_committed readers. */
        public long heldBack() {
            return Math.max(0, high - stable);
        }
    }

    /** The last stable offset and high watermark of each partition of {@code topics}, in order. */
    public static List<Stability> stability(Admin admin, List<String> topics) {
        List<TopicPartition> partitions = partitions(admin, topics);
        // The high watermark first: records written between the two calls then never look held
        // back.
        Map<TopicPartition, Long> high =
                offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> stable =
                offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
        return partitions.stream()
                .map(tp -> new Stability(tp, stable.get(tp), high.get(tp)))
                .toList();
    }

    /** Every partition of {@code topics}, by topic and partition. */
    private static List<TopicPartition> partitions(Admin admin, List<String> topics) {
        List<TopicPartition> partitions = new ArrayList<>();
        Map<String, TopicDescription> described =
                await(
                        admin.describeTopics(topics).allTopicNames(),
                        "describe the topics " + topics);
        described
                .values()
                .forEach(
                        d ->
                                d.partitions()
                                        .forEach(
                                                p ->
                                                        partitions.add(
                                                                new TopicPartition(
                                                                        d.name(), p.partition()))));
        partitions.sort(
                Comparator.comparing(TopicPartition::topic)
                        .thenComparingInt(TopicPartition::partition));
        return partitions;
    }

    /** The lag of {@code group} on each partition of {@code topics}, by topic and partition. */
    public static List<Partition> of(
            Admin admin, Properties client, String group, List<String> topics) {
        List<TopicPartition> partitions = partitions(admin, topics);
        Map<TopicPartition, OffsetAndMetadata> committed =
                await(
                        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(),
                        "read the offsets of group " + group);
        // The high watermark first: records written between the two calls then never look held
        // back.
        Map<TopicPartition, Long> high =
                offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> stable =
                offsets(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED);
        Map<TopicPartition, Long> earliest =
                offsets(admin, partitions, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED);

        // Gaps counted record by record, smallest first, up to COUNTED offsets in all: a screen
        // stays cheap.
        Map<TopicPartition, long[]> gaps = new HashMap<>();
        long budget = COUNTED;
        List<TopicPartition> bySize = new ArrayList<>(partitions);
        bySize.sort(Comparator.comparingLong(tp -> stable.get(tp) - from(committed, earliest, tp)));
        for (TopicPartition tp : bySize) {
            long from = from(committed, earliest, tp);
            long offsets = stable.get(tp) - from;
            if (committed.get(tp) != null && offsets > 0 && offsets <= budget) {
                gaps.put(tp, new long[] {from, stable.get(tp)});
                budget -= offsets;
            }
        }
        Map<TopicPartition, Long> counted = count(client, gaps);
        List<Partition> lag = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            long offsets = Math.max(0, stable.get(tp) - from(committed, earliest, tp));
            Long records =
                    c == null
                            ? Long.valueOf(UNKNOWN)
                            : offsets == 0 ? Long.valueOf(0) : counted.get(tp);
            lag.add(
                    new Partition(
                            tp,
                            c == null ? -1 : c.offset(),
                            stable.get(tp),
                            high.get(tp),
                            records == null ? offsets : records,
                            records != null));
        }
        return lag;
    }

    /**
     * The records a read_committed reader gets in each [from, to) gap; absent: not counted within
     * 10 s.
     */
    private static Map<TopicPartition, Long> count(
            Properties client, Map<TopicPartition, long[]> gaps) {
        Map<TopicPartition, Long> records = new HashMap<>();
        if (gaps.isEmpty()) {
            return records;
        }
        gaps.keySet().forEach(tp -> records.put(tp, 0L));
        try (KafkaConsumer<byte[], byte[]> consumer = CommittedRanges.consumer(client, "kfp-lag")) {
            CommittedRanges.read(
                            consumer,
                            gaps,
                            Duration.ofSeconds(10),
                            r ->
                                    records.merge(
                                            new TopicPartition(r.topic(), r.partition()),
                                            1L,
                                            Long::sum))
                    .forEach(records::remove);
        }
        return records;
    }

    /** Where the group reads on from: its committed offset, no earlier than the log's start. */
    private static long from(
            Map<TopicPartition, OffsetAndMetadata> committed,
            Map<TopicPartition, Long> earliest,
            TopicPartition tp) {
        OffsetAndMetadata c = committed.get(tp);
        return c == null ? earliest.get(tp) : Math.max(c.offset(), earliest.get(tp));
    }

    private static Map<TopicPartition, Long> offsets(
            Admin admin,
            List<TopicPartition> partitions,
            OffsetSpec spec,
            IsolationLevel isolation) {
        Map<TopicPartition, OffsetSpec> query = new HashMap<>();
        partitions.forEach(tp -> query.put(tp, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answer =
                await(
                        admin.listOffsets(query, new ListOffsetsOptions(isolation)).all(),
                        "read the end offsets of " + partitions);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        answer.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    /**
     * A Kafka call that failed: the message says what was asked; the cause is Kafka's exception.
     */
    public static final class KafkaCallException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        KafkaCallException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaCallException("interrupted while waiting to " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new KafkaCallException("Kafka refused to " + what + ": " + cause, cause);
        } catch (TimeoutException e) {
            throw new KafkaCallException(
                    "Kafka did not answer within 60 s when asked to " + what, e);
        }
    }
}
