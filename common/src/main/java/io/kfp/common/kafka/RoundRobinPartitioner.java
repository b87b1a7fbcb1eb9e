package io.kfp.common.kafka;

import org.apache.flink.connector.kafka.sink.KafkaPartitioner;

/**
 * Sends each record to the next partition in turn. Subtasks start at different partitions so that
 * parallel writers do not all hit partition 0 first.
 */
public final class RoundRobinPartitioner<T> implements KafkaPartitioner<T> {

    private static final long serialVersionUID = 1L;

    private int next;

    @Override
    public void open(int parallelInstanceId, int parallelInstances) {
        next = parallelInstanceId;
    }

    @Override
    public int partition(T record, byte[] key, byte[] value, String targetTopic, int[] partitions) {
        if (partitions == null || partitions.length == 0) {
            throw new IllegalStateException("topic " + targetTopic + " has no partitions");
        }
        int partition = partitions[Math.floorMod(next, partitions.length)];
        next = Math.floorMod(next + 1, partitions.length);
        return partition;
    }
}
