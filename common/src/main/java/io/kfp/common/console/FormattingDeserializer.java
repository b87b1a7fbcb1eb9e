package io.kfp.common.console;

import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns each Kafka record into its printed line, as UTF-8 bytes, right in the source: nothing else
 * to carry.
 */
public final class FormattingDeserializer implements KafkaRecordDeserializationSchema<byte[]> {

    private static final long serialVersionUID = 1L;

    private final RecordFormatter formatter;

    public FormattingDeserializer(RecordFormatter formatter) {
        this.formatter = formatter;
    }

    /** Lines formatted as the {@code console.*} options of {@code config} say. */
    public static FormattingDeserializer of(ReadableConfig config) {
        return new FormattingDeserializer(RecordFormatter.fromConfig(config));
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<byte[]> out) {
        out.collect(formatter.format(record));
    }

    @Override
    public TypeInformation<byte[]> getProducedType() {
        return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
    }
}
