package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.testing.FakeSinkContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class PartitionerTest {

    private static final int[] PARTITIONS = {0, 1, 2, 3};

    private static List<Integer> route(
            KafkaPartitioner<String> partitioner, int subtask, int parallelism, int n) {
        partitioner.open(subtask, parallelism);
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            chosen.add(partitioner.partition("r" + i, null, new byte[0], "t", PARTITIONS));
        }
        return chosen;
    }

    @Test
    void kafkaLeavesTheChoiceToTheProducer() {
        assertThat(SinkPartitioner.KAFKA.<String>create()).isNull();
    }

    @Test
    void fixedPinsEachSubtaskToOnePartition() {
        assertThat(route(SinkPartitioner.FIXED.create(), 0, 1, 5)).containsOnly(0);
        assertThat(route(SinkPartitioner.FIXED.create(), 1, 2, 5)).containsOnly(1);
        assertThat(route(SinkPartitioner.FIXED.create(), 5, 6, 3)).containsOnly(1);
    }

    @Test
    void roundRobinCyclesThroughEveryPartitionStartingPerSubtask() {
        assertThat(route(SinkPartitioner.ROUND_ROBIN.create(), 0, 2, 6))
                .containsExactly(0, 1, 2, 3, 0, 1);
        assertThat(route(SinkPartitioner.ROUND_ROBIN.create(), 1, 2, 4))
                .containsExactly(1, 2, 3, 0);
    }

    @Test
    void serializerAppliesTopicPartitionerAndTimestampSetting() throws Exception {
        OutgoingRecord<String> fields =
                new OutgoingRecord<>() {
                    @Override
                    public byte[] key(String element) {
                        return null;
                    }

                    @Override
                    public byte[] value(String element) {
                        return element.getBytes(StandardCharsets.UTF_8);
                    }
                };
        KafkaRecordSerializationSchema.KafkaSinkContext context = new FakeSinkContext(4);

        TopicRecordSerializer<String> withTimestamps =
                new TopicRecordSerializer<>(
                        "out", fields, SinkPartitioner.ROUND_ROBIN.create(), true, producerOnly());
        withTimestamps.open(UnwritableRecordsTest.CONTEXT, context);
        ProducerRecord<byte[], byte[]> first = withTimestamps.serialize("a", context, 1234L);
        ProducerRecord<byte[], byte[]> second = withTimestamps.serialize("b", context, -1L);
        assertThat(first.topic()).isEqualTo("out");
        assertThat(first.partition()).isZero();
        assertThat(first.timestamp()).isEqualTo(1234L);
        assertThat(first.key()).isNull();
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("a");
        assertThat(second.partition()).isEqualTo(1);
        assertThat(second.timestamp()).as("negative Flink timestamps mean none").isNull();

        TopicRecordSerializer<String> withoutTimestamps =
                new TopicRecordSerializer<>("out", fields, null, false, producerOnly());
        withoutTimestamps.open(UnwritableRecordsTest.CONTEXT, context);
        ProducerRecord<byte[], byte[]> plain = withoutTimestamps.serialize("c", context, 1234L);
        assertThat(plain.timestamp()).isNull();
        assertThat(plain.partition()).isNull();
    }

    /** Kafka's default max.request.size checked; no broker asked for the topic's limits. */
    private static UnwritableRecords producerOnly() {
        return new UnwritableRecords(
                "out",
                KafkaSinkOptions.DEFAULT_MAX_REQUEST_SIZE,
                false,
                UnwritableRecords.Policy.FAIL,
                null);
    }
}
