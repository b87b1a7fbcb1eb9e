package io.kfp.common.kafka;

import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.streaming.connectors.kafka.partitioner.FlinkFixedPartitioner;

/** How the sink picks the Kafka partition of each record. */
public enum SinkPartitioner {
    /** Kafka's own choice: hash of the key; keyless records spread over all partitions. */
    KAFKA,
    /** Each sink subtask always writes the same partition (the tutorial's behaviour). */
    FIXED,
    /** Every record to the next partition in turn. */
    ROUND_ROBIN;

    /** The connector partitioner, or {@code null} to let the Kafka producer choose. */
    public <T> KafkaPartitioner<T> create() {
        return switch (this) {
            case KAFKA -> null;
            case FIXED -> new FlinkFixedPartitioner<>();
            case ROUND_ROBIN -> new RoundRobinPartitioner<>();
        };
    }
}
