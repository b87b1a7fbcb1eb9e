package io.kfp.sink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Turns each Kafka record into its printed line right in the source: nothing else to carry. */
final class FormattingDeserializer implements KafkaRecordDeserializationSchema<String> {

    private static final long serialVersionUID = 1L;

    private final RecordFormatter formatter;

    FormattingDeserializer(RecordFormatter formatter) {
        this.formatter = formatter;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> out) {
        out.collect(formatter.format(record));
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }
}
