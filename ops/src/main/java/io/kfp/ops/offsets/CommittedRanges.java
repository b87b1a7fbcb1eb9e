package io.kfp.ops.offsets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads offset ranges of partitions as a {@code read_committed} reader sees them: only committed
 * records, while the position moves past transaction markers and aborted records too, so a range is
 * read when the position reaches its end, whether or not a record sits there. Used by the relay
 * verifier and by the true-lag count.
 */
public final class CommittedRanges {

    private CommittedRanges() {}

    /**
     * A read_committed consumer without a group, which fails rather than skip when a range is
     * deleted under it.
     */
    public static KafkaConsumer<byte[], byte[]> consumer(Properties client, String clientId) {
        Properties props = new Properties();
        props.putAll(client);
        props.setProperty(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        props.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Reads each {start, end} range, giving {@code sink} every committed record in it; returns the
     * partitions not read to their end because no position moved for {@code stall} (empty: all
     * read).
     */
    public static List<TopicPartition> read(
            KafkaConsumer<byte[], byte[]> consumer,
            Map<TopicPartition, long[]> ranges,
            Duration stall,
            Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        List<TopicPartition> pending = new ArrayList<>();
        consumer.assign(ranges.keySet());
        ranges.forEach(
                (tp, r) -> {
                    consumer.seek(tp, r[0]);
                    if (r[0] < r[1]) {
                        pending.add(tp);
                    }
                });
        consumer.pause(ranges.keySet());
        consumer.resume(pending);
        long moved = System.nanoTime();
        long positions = -1;
        while (!pending.isEmpty()) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() < ranges.get(new TopicPartition(r.topic(), r.partition()))[1]) {
                    sink.accept(r);
                }
            }
            long now = 0;
            for (TopicPartition tp : List.copyOf(pending)) {
                long position = consumer.position(tp);
                now += position;
                if (position >= ranges.get(tp)[1]) {
                    pending.remove(tp);
                    consumer.pause(List.of(tp));
                }
            }
            if (now != positions) {
                positions = now;
                moved = System.nanoTime();
            } else if (System.nanoTime() - moved > stall.toNanos()) {
                return pending;
            }
        }
        return pending;
    }
}
