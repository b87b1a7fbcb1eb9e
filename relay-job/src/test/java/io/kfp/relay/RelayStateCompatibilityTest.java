package io.kfp.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.StateCompatibilityContract;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The relay with window-count: the kept savepoint holds an open window (a counted 3, b counted 2);
 * after the restore two more a's arrive in it and a record two minutes later closes it: a 5, b 2.
 * Were the counts lost on restore, a would be 2 and b missing.
 */
class RelayStateCompatibilityTest extends StateCompatibilityContract {

    static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    @Override
    protected JobSpec spec() {
        return RelayJob.SPEC;
    }

    @Override
    protected List<String> settings() {
        return List.of("--relay.transform", "window-count", "--relay.idle-timeout", "1 s");
    }

    @Override
    protected List<ProducerRecord<byte[], byte[]>> before(String topic) {
        return List.of(
                record(topic, "a", 1),
                record(topic, "b", 2),
                record(topic, "a", 3),
                record(topic, "b", 4),
                record(topic, "a", 5));
    }

    @Override
    protected List<ProducerRecord<byte[], byte[]>> after(String topic) {
        return List.of(record(topic, "a", 10), record(topic, "a", 11), record(topic, "z", 120));
    }

    @Override
    protected boolean complete(List<ConsumerRecord<byte[], byte[]>> output) {
        // The window closed: its keys' counts are written at the same watermark.
        return !output.isEmpty();
    }

    @Override
    protected void assertStateCameThrough(List<ConsumerRecord<byte[], byte[]>> output) {
        List<String> counts = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : output) {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            counts.add(
                    new String(r.key(), StandardCharsets.UTF_8)
                            + " "
                            + value.replaceAll(".*\"count\":(\\d+).*", "$1"));
        }
        assertThat(counts)
                .as("the window's counts from before the savepoint, carried on")
                .containsExactlyInAnyOrder("a 5", "b 2");
    }

    /** All in partition 0, in order; {@code second} seconds into the first minute's window. */
    private static ProducerRecord<byte[], byte[]> record(String topic, String key, int second) {
        return new ProducerRecord<>(
                topic,
                0,
                T0 + second * 1000L,
                key.getBytes(StandardCharsets.UTF_8),
                ("at-" + second).getBytes(StandardCharsets.UTF_8));
    }
}
