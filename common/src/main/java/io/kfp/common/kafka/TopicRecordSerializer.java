package io.kfp.common.kafka;

import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes each element to one topic, with the sink's partitioner and timestamp setting. Names its
 * topic to the connector ({@link KafkaDatasetFacetProvider}): lineage, and pooling transaction
 * naming, which fails the job without it. What it writes is counted by the connector's writer
 * (Flink's {@code numRecordsOut}, and {@code numBytesOut} from the producer's bytes sent).
 */
public final class TopicRecordSerializer<T> implements KafkaRecordSerializationSchema<T>, KafkaDatasetFacetProvider {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final OutgoingRecord<T> fields;
    private final KafkaPartitioner<T> partitioner;
    private final boolean writeTimestamps;

    /**
     * @param partitioner {@code null} lets the Kafka producer choose the partition
     */
    public TopicRecordSerializer(
            String topic,
            OutgoingRecord<T> fields,
            KafkaPartitioner<T> partitioner,
            boolean writeTimestamps) {
        this.topic = topic;
        this.fields = fields;
        this.partitioner = partitioner;
        this.writeTimestamps = writeTimestamps;
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext)
            throws Exception {
        if (partitioner != null) {
            partitioner.open(
                    sinkContext.getParallelInstanceId(), sinkContext.getNumberOfParallelInstances());
        }
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            T element, KafkaSinkContext context, Long timestamp) {
        byte[] key = fields.key(element);
        byte[] value = fields.value(element);
        Integer partition =
                partitioner == null
                        ? null
                        : partitioner.partition(
                                element, key, value, topic, context.getPartitionsForTopic(topic));
        Long recordTimestamp = writeTimestamps ? fields.timestamp(element, timestamp) : null;
        if (recordTimestamp != null && recordTimestamp < 0) {
            recordTimestamp = null;
        }
        return new ProducerRecord<>(topic, partition, recordTimestamp, key, value, fields.headers(element));
    }
}
