package io.kfp.common.kafka;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Kafka record -> {@link KafkaRecord}, keeping the consumer's byte arrays as they are, and where it
 * was read (for messages about it, e.g. {@link UnwritableRecords}).
 */
public final class KafkaRecordDeserializer
        implements KafkaRecordDeserializationSchema<KafkaRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<KafkaRecord> out) {
        Headers headers = record.headers();
        Header[] all = headers == null ? new Header[0] : headers.toArray();
        KafkaRecord relayed =
                new KafkaRecord(
                        record.key(), record.value(), record.timestamp(), record.partition());
        relayed.topic = record.topic();
        relayed.offset = record.offset();
        if (all.length > 0) {
            relayed.headerKeys = new String[all.length];
            relayed.headerValues = new byte[all.length][];
            for (int i = 0; i < all.length; i++) {
                relayed.headerKeys[i] = all[i].key();
                relayed.headerValues[i] = all[i].value();
            }
        }
        out.collect(relayed);
    }

    @Override
    public TypeInformation<KafkaRecord> getProducedType() {
        return TypeInformation.of(KafkaRecord.class);
    }
}
