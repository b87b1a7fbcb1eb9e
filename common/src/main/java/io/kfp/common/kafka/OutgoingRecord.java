package io.kfp.common.kafka;

import java.io.Serializable;
import org.apache.kafka.common.header.Headers;

/**
 * How a job's element becomes the parts of a Kafka record. The topic, partition and whether
 * timestamps are written are the sink's settings, applied by {@link TopicRecordSerializer}.
 */
public interface OutgoingRecord<T> extends Serializable {

    /** The key bytes, or {@code null} for no key. */
    byte[] key(T element);

    /** The value bytes. */
    byte[] value(T element);

    /** Headers to write, or {@code null} for none. */
    default Headers headers(T element) {
        return null;
    }

    /**
     * The record's timestamp given the element's Flink timestamp (may be {@code null}); {@code
     * null} lets the producer stamp the send time.
     */
    default Long timestamp(T element, Long flinkTimestamp) {
        return flinkTimestamp;
    }

    /**
     * Where {@code element} came from, for a message about it (e.g. "read from in-3 offset 7"), or
     * {@code null}.
     */
    default String origin(T element) {
        return null;
    }
}
