package io.kfp.relay;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Kafka record -> {@link RelayRecord}, keeping the consumer's byte arrays as they are. */
public final class RelayRecordDeserializer implements KafkaRecordDeserializationSchema<RelayRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RelayRecord> out) {
        RelayRecord relayed =
                new RelayRecord(record.key(), record.value(), record.timestamp(), record.partition());
        Headers headers = record.headers();
        Header[] all = headers == null ? new Header[0] : headers.toArray();
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
    public TypeInformation<RelayRecord> getProducedType() {
        return TypeInformation.of(RelayRecord.class);
    }
}
