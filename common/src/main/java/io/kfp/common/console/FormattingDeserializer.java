package io.kfp.sink;

import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns each Kafka record into its printed line, as UTF-8 bytes, right in the source: nothing else
 * to carry.
 */
final class FormattingDeserializer implements KafkaRecordDeserializationSchema<byte[]> {

    private static final long serialVersionUID = 1L;

    private final RecordFormatter formatter;

    FormattingDeserializer(RecordFormatter formatter) {
        this.formatter = formatter;
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
