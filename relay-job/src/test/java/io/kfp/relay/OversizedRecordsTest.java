package io.kfp.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.kafka.KafkaRecord;
import io.kfp.common.kafka.KafkaRecordDeserializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** A record the producer could never write is stopped where its offset is known. */
class OversizedRecordsTest {

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

    private static ConsumerRecord<byte[], byte[]> record(long offset, int valueBytes) {
        return new ConsumerRecord<>(
                "in",
                3,
                offset,
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
    void byDefaultAnOversizedRecordFailsTheJobWithoutRestartsNamingIt() {
        KafkaRecordDeserializer deserializer =
                KafkaRecordDeserializer.of(
                        RelayJob.SPEC.configuration("--source.topics", "in", "--sink.topic", "out"),
                        RelayOptions.OVERSIZED_RECORDS);
        deserializer.deserialize(record(6, 1000), collector);
        assertThat(out).hasSize(1);

        assertThatThrownBy(() -> deserializer.deserialize(record(7, 1024 * 1024), collector))
                .isInstanceOf(SuppressRestartsException.class)
                .rootCause()
                .hasMessageContaining(
                        "the record at in-3 offset 7 is 1048665 bytes as the producer counts them")
                .hasMessageContaining("above its max.request.size (1048576 bytes)")
                .hasMessageContaining(
                        "kafka.properties.max.request.size", "relay.oversized-records=skip");
        assertThat(out).hasSize(1);
    }

    @Test
    void withSkipItIsLeftOutAndCounted() {
        SimpleCounter skipped = new SimpleCounter();
        KafkaRecordDeserializer deserializer =
                new KafkaRecordDeserializer(
                        2000, KafkaRecordDeserializer.Oversized.SKIP, "relay.oversized-records");
        deserializer.open(context(skipped));
        deserializer.deserialize(record(1, 1000), collector);
        deserializer.deserialize(record(2, 3000), collector);
        deserializer.deserialize(record(3, 10), collector);
        assertThat(out).hasSize(2);
        assertThat(skipped.getCount()).isEqualTo(1);
    }

    @Test
    void theLimitAndThePolicyComeFromTheJobsConfig() {
        assertThat(
                        RelayJob.SPEC
                                .configuration(
                                        "--source.topics",
                                        "in",
                                        "--sink.topic",
                                        "out",
                                        "--kafka.properties.max.request.size",
                                        "5000000",
                                        "--relay.oversized-records",
                                        "skip")
                                .get(RelayOptions.OVERSIZED_RECORDS))
                .isEqualTo(KafkaRecordDeserializer.Oversized.SKIP);
        assertThatThrownBy(
                        () ->
                                RelayJob.SPEC.configuration(
                                        "--source.topics",
                                        "in",
                                        "--sink.topic",
                                        "out",
                                        "--kafka.properties.max.request.size",
                                        "1 MB"))
                .hasMessageContaining(
                        "kafka.properties.max.request.size", "not a whole number of bytes");
    }

    private static DeserializationSchema.InitializationContext context(SimpleCounter counter) {
        return new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return new UnregisteredMetricsGroup() {
                    @Override
                    public Counter counter(String name) {
                        assertThat(name).isEqualTo(KafkaRecordDeserializer.OVERSIZED_METRIC);
                        return counter;
                    }
                };
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return null;
            }
        };
    }
}
