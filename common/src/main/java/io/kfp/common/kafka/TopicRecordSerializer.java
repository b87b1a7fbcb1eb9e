package io.kfp.common.kafka;

import java.util.Optional;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchemaBuilder;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes each element to one topic: the connector's {@link
 * KafkaRecordSerializationSchema#builder()} (topic, key, value, headers, partitioner; it names the
 * topic to the connector, for lineage and for pooling transaction naming, which fails the job
 * without it), plus the one thing the builder lacks: the timestamp. The builder always writes the
 * element's Flink timestamp; here it is the element's own ({@link OutgoingRecord#timestamp}: the
 * relay keeps its input record's), or none at all with {@code sink.write-timestamps=false} (the
 * producer stamps the send time). A record Kafka would refuse for good never reaches the producer
 * ({@link UnwritableRecords}). What it writes is counted by the connector's writer (Flink's {@code
 * numRecordsOut}, {@code numBytesOut} from the bytes sent).
 */
public final class TopicRecordSerializer<T>
        implements KafkaRecordSerializationSchema<T>, KafkaDatasetFacetProvider {

    private static final long serialVersionUID = 1L;

    private final KafkaRecordSerializationSchema<T> records;
    private final OutgoingRecord<T> fields;
    private final boolean writeTimestamps;
    private final UnwritableRecords unwritable;

    /**
     * @param partitioner {@code null} lets the Kafka producer choose the partition
     */
    public TopicRecordSerializer(
            String topic,
            OutgoingRecord<T> fields,
            KafkaPartitioner<T> partitioner,
            boolean writeTimestamps,
            UnwritableRecords unwritable) {
        KafkaRecordSerializationSchemaBuilder<T> builder =
                KafkaRecordSerializationSchema.<T>builder()
                        .setTopic(topic)
                        .setKeySerializationSchema(fields::key)
                        .setValueSerializationSchema(fields::value)
                        .setHeaderProvider(fields::headers);
        if (partitioner != null) {
            builder.setPartitioner(partitioner);
        }
        this.records = builder.build();
        this.fields = fields;
        this.writeTimestamps = writeTimestamps;
        this.unwritable = unwritable;
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        return ((KafkaDatasetFacetProvider) records).getKafkaDatasetFacet();
    }

    @Override
    public void open(
            SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext)
            throws Exception {
        records.open(context, sinkContext);
        unwritable.open(context.getMetricGroup());
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            T element, KafkaSinkContext context, Long timestamp) {
        // The builder's schema writes a null or negative timestamp as none.
        ProducerRecord<byte[], byte[]> record =
                records.serialize(
                        element,
                        context,
                        writeTimestamps ? fields.timestamp(element, timestamp) : null);
        // null: the connector's writer sends nothing.
        return unwritable.admit(record, fields.origin(element));
    }
}
