package io.kfp.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import io.kfp.testkit.ExactlyOnceContract;
import io.kfp.testkit.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Dedup on a real broker under failures, fed the way an at-least-once writer replays: every id
 * twice in a row, and every tenth record a replay of one 1,000 records back - so the records fed
 * after the savepoint repeat ids from before it. Its effect, exactly once: one output record per
 * id, the first one of that id, however often the job failed or was stopped and resumed.
 */
class DedupContractTest extends ExactlyOnceContract {

    @Override
    protected JobSpec spec() {
        return DedupJob.SPEC;
    }

    @Override
    protected ProducerRecord<byte[], byte[]> record(String topic, long i) {
        long id = i % 10 == 0 && i >= 1_000 ? (i - 1_000) / 2 : i / 2;
        return new ProducerRecord<>(
                topic,
                ("id-" + id).getBytes(StandardCharsets.UTF_8),
                ("seq-" + i).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected boolean complete(
            List<ConsumerRecord<byte[], byte[]>> input,
            List<ConsumerRecord<byte[], byte[]>> output) {
        return output.size() >= firstOfEachId(input).size();
    }

    @Override
    protected void assertEffect(Topics topics, List<ConsumerRecord<byte[], byte[]>> input)
            throws Exception {
        Map<String, String> expected = firstOfEachId(input);
        Map<String, String> written = new HashMap<>();
        int duplicates = 0;
        for (ConsumerRecord<byte[], byte[]> r :
                KafkaTopics.readAll(topics.bootstrap(), topics.output(), true)) {
            if (written.put(key(r), value(r)) != null) {
                duplicates++;
            }
        }
        assertThat(duplicates).as("ids written more than once").isZero();
        assertThat(written).as("the first record of each id, once").isEqualTo(expected);
        assertThat(input.size())
                .as("the input repeats ids, or this proved nothing")
                .isGreaterThan(expected.size());
    }

    /** Id -> value of its first record: both copies of an id share a partition, read in order. */
    private static Map<String, String> firstOfEachId(List<ConsumerRecord<byte[], byte[]>> input) {
        Map<String, String> first = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : input) {
            first.putIfAbsent(key(r), value(r));
        }
        return first;
    }

    private static String key(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.key(), StandardCharsets.UTF_8);
    }

    private static String value(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.value(), StandardCharsets.UTF_8);
    }
}
