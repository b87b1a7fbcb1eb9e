package io.kfp.common.kafka;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * {@link KafkaRecord} -> the parts of the outgoing Kafka record: the same bytes, headers and
 * timestamp.
 */
public final class KafkaRecordFields implements OutgoingRecord<KafkaRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public byte[] key(KafkaRecord record) {
        return record.key;
    }

    @Override
    public byte[] value(KafkaRecord record) {
        return record.value;
    }

    @Override
    public Headers headers(KafkaRecord record) {
        if (record.headerKeys == null) {
            return null;
        }
        Header[] headers = new Header[record.headerKeys.length];
        for (int i = 0; i < headers.length; i++) {
            headers[i] = new RecordHeader(record.headerKeys[i], record.headerValues[i]);
        }
        return new RecordHeaders(headers);
    }

    /**
     * The timestamp read from the input, in the box Flink's sink writer already made for this
     * record when it is the same value (always, for Kafka input): one {@code Long} per record, not
     * two. Else (window-count's counts) boxed here.
     */
    @Override
    public Long timestamp(KafkaRecord record, Long flinkTimestamp) {
        return flinkTimestamp != null && flinkTimestamp == record.timestamp
                ? flinkTimestamp
                : Long.valueOf(record.timestamp);
    }

    @Override
    public String origin(KafkaRecord record) {
        return record.offset < 0
                ? null
                : "read from " + record.topic + "-" + record.partition + " offset " + record.offset;
    }
}
