package io.kfp.relay;

import io.kfp.common.kafka.OutgoingRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** {@link RelayRecord} -> the parts of the outgoing Kafka record: the same bytes, headers and timestamp. */
final class RelayedFields implements OutgoingRecord<RelayRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public byte[] key(RelayRecord record) {
        return record.key;
    }

    @Override
    public byte[] value(RelayRecord record) {
        return record.value;
    }

    @Override
    public Headers headers(RelayRecord record) {
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
     * The last timestamp boxed here: consecutive records mostly share their millisecond (at a
     * million records a second, a thousand do). What is returned is always the record's own value
     * (the box read is the box compared), so even threads sharing an instance could only cost each
     * other a box.
     */
    private transient Long last;

    /**
     * The timestamp read from the input, boxed once per record at most: Flink's (the sink writer's
     * context boxes it for each record) when it is the same, as it is for Kafka input; else the
     * last one boxed here when the millisecond is the same.
     */
    @Override
    public Long timestamp(RelayRecord record, Long flinkTimestamp) {
        if (flinkTimestamp != null && flinkTimestamp == record.timestamp) {
            return flinkTimestamp;
        }
        Long boxed = last;
        if (boxed == null || boxed != record.timestamp) {
            boxed = record.timestamp;
            last = boxed;
        }
        return boxed;
    }
}
