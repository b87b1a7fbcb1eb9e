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
import org.apache.flink.metrics.Counter;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes each element to one topic, with the sink's partitioner and timestamp setting, and
 * counts what it writes in the task's metrics ({@value #RECORDS_METRIC}, {@value #BYTES_METRIC}:
 * key plus value bytes). Names its topic to the connector ({@link KafkaDatasetFacetProvider}):
 * lineage, and pooling transaction naming, which fails the job without it.
 */
public final class TopicRecordSerializer<T> implements KafkaRecordSerializationSchema<T>, KafkaDatasetFacetProvider {

    private static final long serialVersionUID = 1L;

    public static final String RECORDS_METRIC = "kfpRecordsOut";
    public static final String BYTES_METRIC = "kfpBytesOut";

    private final String topic;
    private final OutgoingRecord<T> fields;
    private final KafkaPartitioner<T> partitioner;
    private final boolean writeTimestamps;
    private transient Counter records;
    private transient Counter bytes;

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
        // The sink may open its serializer more than once; a second registration of the same
        // name would hand back a counter that is never reported.
        if (context != null && records == null) {
            records = context.getMetricGroup().counter(RECORDS_METRIC);
            bytes = context.getMetricGroup().counter(BYTES_METRIC);
        }
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
        if (records != null) {
            records.inc();
            bytes.inc((key == null ? 0 : key.length) + (value == null ? 0 : value.length));
        }
        return new ProducerRecord<>(topic, partition, recordTimestamp, key, value, fields.headers(element));
    }
}
