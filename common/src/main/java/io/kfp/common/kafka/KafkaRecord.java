package io.kfp.common.kafka;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

/**
 * One Kafka record on its way through a job, as bytes: nothing decodes it unless the job does, so
 * binary data and invalid UTF-8 pass unchanged. A Flink POJO (public fields, no-arg constructor),
 * so Flink serializes it without Kryo.
 */
public class KafkaRecord implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Key bytes; {@code null} when the record has no key (not the same as an empty key). */
    public byte[] key;

    /** Value bytes; {@code null} for a tombstone (not the same as an empty value). */
    public byte[] value;

    /** Header names in order, or {@code null} when there are no headers. */
    public String[] headerKeys;

    /** Header values, parallel to {@link #headerKeys}; an element may be {@code null}. */
    public byte[][] headerValues;

    /** The record's timestamp in epoch milliseconds, as read. */
    public long timestamp;

    /** The partition it was read from; -1 for records the job made itself (e.g. window counts). */
    public int partition = -1;

    /**
     * The topic it was read from, for messages about it; {@code null} for records the job made. Not
     * part of {@link #equals}: where a record was read is not what it is.
     */
    public String topic;

    /** Its offset there; -1 for records the job made. Not part of {@link #equals}. */
    public long offset = -1;

    public KafkaRecord() {}

    public KafkaRecord(byte[] key, byte[] value, long timestamp, int partition) {
        this.key = key;
        this.value = value;
        this.timestamp = timestamp;
        this.partition = partition;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof KafkaRecord other)) {
            return false;
        }
        return timestamp == other.timestamp
                && partition == other.partition
                && Arrays.equals(key, other.key)
                && Arrays.equals(value, other.value)
                && Arrays.equals(headerKeys, other.headerKeys)
                && Arrays.deepEquals(headerValues, other.headerValues);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                Arrays.hashCode(key),
                Arrays.hashCode(value),
                Arrays.hashCode(headerKeys),
                Arrays.deepHashCode(headerValues),
                timestamp,
                partition);
    }

    @Override
    public String toString() {
        return "KafkaRecord{partition="
                + partition
                + ", timestamp="
                + timestamp
                + ", key="
                + (key == null ? "null" : key.length + " bytes")
                + ", value="
                + (value == null ? "null" : value.length + " bytes")
                + ", headers="
                + (headerKeys == null ? 0 : headerKeys.length)
                + "}";
    }
}
