package io.kfp.relay;

import io.kfp.common.kafka.KafkaRecord;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Input partition i -> output partition i ({@code relay.same-partition}). The start-up check
 * ({@link RelayPreflight}) makes sure the output has enough partitions; this check catches
 * partitions added to the input later, with a message instead of a Kafka error. Restarts cannot
 * help (the record comes again, and the sink knows the output's partitions from its start), so the
 * job fails without them.
 */
final class SamePartitionPartitioner implements KafkaPartitioner<KafkaRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public int partition(
            KafkaRecord record, byte[] key, byte[] value, String targetTopic, int[] partitions) {
        if (record.partition < 0 || record.partition >= partitions.length) {
            throw new SuppressRestartsException(
                    new IllegalStateException(
                            "relay.same-partition: the record came from input partition "
                                    + record.partition
                                    + " but output topic '"
                                    + targetTopic
                                    + "' has only "
                                    + partitions.length
                                    + " partitions. Add partitions to '"
                                    + targetTopic
                                    + "' (at least as many as the input has) or set"
                                    + " relay.same-partition=false. The job fails without restarting;"
                                    + " resume it from its last checkpoint once that is done."));
        }
        return record.partition;
    }
}
