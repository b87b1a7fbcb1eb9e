package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** A job without a policy of its own takes the producer's limit from its kafka.properties. */
class KafkaRecordDeserializerTest {

    private final List<KafkaRecord> out = new ArrayList<>();
    private final Collector<KafkaRecord> collector =
            new Collector<>() {
                @Override
                public void collect(KafkaRecord record) {
                    out.add(record);
                }

                @Override
                public void close() {}
            };

    private static ConsumerRecord<byte[], byte[]> record(int valueBytes) {
        return new ConsumerRecord<>(
                "in",
                0,
                9,
                1L,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                "k".getBytes(),
                new byte[valueBytes],
                new RecordHeaders(),
                Optional.empty());
    }

    @Test
    void theLimitIsTheJobsMaxRequestSize() {
        Configuration raised = new Configuration();
        raised.setString("kafka.properties.max.request.size", "5000000");
        KafkaRecordDeserializer.of(raised).deserialize(record(2_000_000), collector);
        assertThat(out).hasSize(1);

        assertThatThrownBy(
                        () ->
                                KafkaRecordDeserializer.of(new Configuration())
                                        .deserialize(record(2_000_000), collector))
                .isInstanceOf(SuppressRestartsException.class)
                .rootCause()
                .hasMessageContaining("above its max.request.size (1048576 bytes)")
                .hasMessageContaining("Raise kafka.properties.max.request.size")
                .hasMessageNotContaining("=skip");
    }
}
