package io.kfp.common.testing;

import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;

/** Subtask 0 of 1, writing to a topic with partitions 0..n-1. */
public record FakeSinkContext(int partitions)
        implements KafkaRecordSerializationSchema.KafkaSinkContext {

    @Override
    public int getParallelInstanceId() {
        return 0;
    }

    @Override
    public int getNumberOfParallelInstances() {
        return 1;
    }

    @Override
    public int[] getPartitionsForTopic(String topic) {
        int[] ids = new int[partitions];
        for (int i = 0; i < partitions; i++) {
            ids[i] = i;
        }
        return ids;
    }
}
