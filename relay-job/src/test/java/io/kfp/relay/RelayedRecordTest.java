package io.kfp.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.kafka.KafkaRecord;
import io.kfp.common.kafka.KafkaRecordDeserializer;
import io.kfp.common.kafka.KafkaRecordFields;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.TopicRecordSerializer;
import io.kfp.common.kafka.UnwritableRecords;
import io.kfp.common.testing.FakeSinkContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The relayed record survives Flink serialization and the Kafka round trip unchanged. */
class RelayedRecordTest {

    private static final byte[] BINARY = {
        (byte) 0xff, 0, (byte) 0xc3, 0x28, (byte) 0x80, '\n', 0x7f
    };

    static List<KafkaRecord> records() {
        KafkaRecord withHeaders =
                new KafkaRecord(
                        "k".getBytes(StandardCharsets.UTF_8), BINARY, 1_700_000_000_123L, 3);
        withHeaders.headerKeys = new String[] {"trace", "empty", "null-value", "trace"};
        withHeaders.headerValues = new byte[][] {{1, 2}, {}, null, {(byte) 0xfe}};
        return List.of(
                new KafkaRecord(null, "no key".getBytes(StandardCharsets.UTF_8), 1L, 0),
                new KafkaRecord(new byte[0], new byte[0], 0L, 1),
                new KafkaRecord(BINARY, null, Long.MAX_VALUE, 2),
                withHeaders);
    }

    @Test
    void flinkSerializesItAsAPojoNotWithKryo() {
        TypeSerializer<KafkaRecord> serializer =
                TypeInformation.of(KafkaRecord.class).createSerializer(new SerializerConfigImpl());
        assertThat(serializer).isInstanceOf(PojoSerializer.class);
    }

    @ParameterizedTest
    @MethodSource("records")
    void roundTripsThroughFlinkSerialization(KafkaRecord record) throws Exception {
        TypeSerializer<KafkaRecord> serializer =
                TypeInformation.of(KafkaRecord.class).createSerializer(new SerializerConfigImpl());
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(record, out);
        KafkaRecord back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(back).isEqualTo(record);
        assertThat(serializer.copy(record)).isEqualTo(record);
    }

    @ParameterizedTest
    @MethodSource("records")
    void kafkaRecordInIsKafkaRecordOut(KafkaRecord original) throws Exception {
        RecordHeaders headers = new RecordHeaders();
        if (original.headerKeys != null) {
            for (int i = 0; i < original.headerKeys.length; i++) {
                headers.add(new RecordHeader(original.headerKeys[i], original.headerValues[i]));
            }
        }
        ConsumerRecord<byte[], byte[]> in =
                new ConsumerRecord<>(
                        "in",
                        original.partition,
                        42L,
                        original.timestamp,
                        TimestampType.CREATE_TIME,
                        -1,
                        -1,
                        original.key,
                        original.value,
                        headers,
                        Optional.empty());
        List<KafkaRecord> read = new ArrayList<>();
        new KafkaRecordDeserializer()
                .deserialize(
                        in,
                        new Collector<>() {
                            @Override
                            public void collect(KafkaRecord record) {
                                read.add(record);
                            }

                            @Override
                            public void close() {}
                        });
        assertThat(read).containsExactly(original);

        TopicRecordSerializer<KafkaRecord> serializer =
                new TopicRecordSerializer<>(
                        "out",
                        new KafkaRecordFields(),
                        null,
                        true,
                        UnwritableRecords.of(
                                RelayJob.SPEC.configuration(
                                        "--source.topics", "in", "--sink.topic", "out"),
                                "out"));
        ProducerRecord<byte[], byte[]> outgoing =
                serializer.serialize(read.get(0), new FakeSinkContext(8), 999L);
        assertThat(outgoing.key()).isEqualTo(original.key);
        assertThat(outgoing.value()).isEqualTo(original.value);
        assertThat(outgoing.timestamp()).isEqualTo(original.timestamp);
        assertThat(outgoing.partition()).isNull();
        assertThat(outgoing.headers().toArray()).containsExactly(headers.toArray());
        // Without a Flink timestamp (sink.write-timestamps stays on): the record's own is written.
        assertThat(serializer.serialize(read.get(0), new FakeSinkContext(8), null).timestamp())
                .isEqualTo(original.timestamp);
    }

    @Test
    void theRecordsOwnTimestampIsWrittenInFlinksBoxWhenItIsTheSame() {
        KafkaRecordFields fields = new KafkaRecordFields();
        KafkaRecord record = new KafkaRecord(null, new byte[0], 1_700_000_000_001L, 0);
        // Kafka input: Flink's timestamp is the record's, and its box is taken as it is.
        Long flinks = Long.valueOf(1_700_000_000_001L);
        assertThat(fields.timestamp(record, flinks)).isSameAs(flinks);
        // Otherwise (none, or another, as for window-count's counts) the record's own.
        assertThat(fields.timestamp(record, null)).isEqualTo(1_700_000_000_001L);
        assertThat(fields.timestamp(record, 5L)).isEqualTo(1_700_000_000_001L);
    }

    @Test
    void samePartitionMapsIToIAndFailsWithoutRestartsWhenTheOutputIsTooSmall() {
        SamePartitionPartitioner partitioner = new SamePartitionPartitioner();
        KafkaRecord fromTwo = new KafkaRecord(null, new byte[0], 0, 2);
        assertThat(partitioner.partition(fromTwo, null, new byte[0], "out", new int[] {0, 1, 2, 3}))
                .isEqualTo(2);
        Assertions.assertThatThrownBy(
                        () ->
                                partitioner.partition(
                                        fromTwo, null, new byte[0], "out", new int[] {0, 1}))
                .as("a restart would meet the same record and the same partitions")
                .isInstanceOf(SuppressRestartsException.class)
                .rootCause()
                .hasMessageContaining("input partition 2")
                .hasMessageContaining("'out' has only 2 partitions")
                .hasMessageContaining("relay.same-partition=false")
                .hasMessageContaining("resume it from its last checkpoint");
    }

    @Test
    void theFormerKeyOfTheUnwritableRecordsPolicyStillSetsIt() {
        assertThat(
                        RelayJob.SPEC
                                .configuration(
                                        "--source.topics",
                                        "in",
                                        "--sink.topic",
                                        "out",
                                        "--relay.oversized-records",
                                        "skip")
                                .get(KafkaSinkOptions.UNWRITABLE_RECORDS))
                .isEqualTo(UnwritableRecords.Policy.SKIP);
    }
}
