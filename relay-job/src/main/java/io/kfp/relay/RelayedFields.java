package io.kfp.relay;

import io.kfp.common.kafka.OutgoingRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

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
    public Iterable<Header> headers(RelayRecord record) {
        if (record.headerKeys == null) {
            return null;
        }
        List<Header> headers = new ArrayList<>(record.headerKeys.length);
        for (int i = 0; i < record.headerKeys.length; i++) {
            headers.add(new RecordHeader(record.headerKeys[i], record.headerValues[i]));
        }
        return headers;
    }

    /** The timestamp read from the input, not the one Flink carries (they agree for Kafka input). */
    @Override
    public Long timestamp(RelayRecord record, Long flinkTimestamp) {
        return record.timestamp;
    }
}
