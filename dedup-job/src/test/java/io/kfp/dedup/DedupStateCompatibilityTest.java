package io.kfp.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.StateCompatibilityContract;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The kept savepoint remembers ids 0-99; after the restore ids 50-149 arrive: only 100-149 may
 * pass. Were the ids lost on restore, 50-99 would be written again.
 */
class DedupStateCompatibilityTest extends StateCompatibilityContract {

    @Override
    protected JobSpec spec() {
        return DedupJob.SPEC;
    }

    /**
     * The ids' time to live counts from when the savepoint was made: with the default hour, the
     * kept ids would have expired an hour after the savepoint was refreshed.
     */
    @Override
    protected List<String> settings() {
        return List.of("--dedup.retention", "36500 d");
    }

    @Override
    protected List<ProducerRecord<byte[], byte[]>> before(String topic) {
        return ids(topic, 0, 100, "before");
    }

    @Override
    protected List<ProducerRecord<byte[], byte[]>> after(String topic) {
        return ids(topic, 50, 150, "after");
    }

    @Override
    protected boolean complete(List<ConsumerRecord<byte[], byte[]>> output) {
        return output.size() >= 50;
    }

    @Override
    protected void assertStateCameThrough(List<ConsumerRecord<byte[], byte[]>> output) {
        List<String> written = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : output) {
            written.add(
                    new String(r.key(), StandardCharsets.UTF_8)
                            + "="
                            + new String(r.value(), StandardCharsets.UTF_8));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 100; i < 150; i++) {
            expected.add("id-" + i + "=after-" + i);
        }
        assertThat(written)
                .as("the ids the savepoint remembers (0-99) are not written again")
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static List<ProducerRecord<byte[], byte[]>> ids(
            String topic, int from, int to, String value) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            records.add(
                    new ProducerRecord<>(
                            topic,
                            ("id-" + i).getBytes(StandardCharsets.UTF_8),
                            (value + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        return records;
    }
}
