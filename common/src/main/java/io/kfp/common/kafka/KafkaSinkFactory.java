package io.kfp.common.kafka;

import java.util.Properties;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Builds the {@link KafkaSink} every job writes with, from validated {@link KafkaSinkOptions}; an
 * exactly-once one inside a {@link GuardedKafkaSink}, so a lost transaction is never silent.
 */
public final class KafkaSinkFactory {

    private KafkaSinkFactory() {}

    /** A sink writing {@code fields} of each element to {@code sink.topic}. */
    public static <T> Sink<T> create(ReadableConfig config, OutgoingRecord<T> fields) {
        return create(config, serializer(config, fields));
    }

    /**
     * A sink with a job's own serialization schema (for routing {@link TopicRecordSerializer}
     * cannot express).
     */
    public static <T> Sink<T> create(
            ReadableConfig config, KafkaRecordSerializationSchema<T> serializer) {
        DeliveryGuarantee guarantee = config.get(KafkaSinkOptions.DELIVERY_GUARANTEE);
        KafkaSinkBuilder<T> builder =
                KafkaSink.<T>builder()
                        .setKafkaProducerConfig(producerProperties(config))
                        .setBootstrapServers(config.get(KafkaClientOptions.BOOTSTRAP_SERVERS))
                        .setDeliveryGuarantee(guarantee)
                        .setRecordSerializer(serializer);
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            builder.setTransactionalIdPrefix(KafkaSinkOptions.transactionalIdPrefix(config))
                    .setTransactionNamingStrategy(config.get(KafkaSinkOptions.TRANSACTION_NAMING));
            LostTransactionGuard.Settings guard = LostTransactionGuard.Settings.from(config);
            return new GuardedKafkaSink<>(
                    builder.build(),
                    guard,
                    JobLease.ofPrefix(
                            guard.job(),
                            KafkaSinkOptions.transactionalIdPrefix(config),
                            guard.connection()));
        }
        return builder.build();
    }

    /**
     * {@code sink.topic}, {@code sink.partitioner}, {@code sink.write-timestamps} and {@code
     * sink.unwritable-records} applied to {@code fields}.
     */
    public static <T> TopicRecordSerializer<T> serializer(
            ReadableConfig config, OutgoingRecord<T> fields) {
        return serializer(config, fields, config.get(KafkaSinkOptions.PARTITIONER).<T>create());
    }

    /** Like {@link #serializer(ReadableConfig, OutgoingRecord)} with the job's own partitioner. */
    public static <T> TopicRecordSerializer<T> serializer(
            ReadableConfig config, OutgoingRecord<T> fields, KafkaPartitioner<T> partitioner) {
        String topic = config.get(KafkaSinkOptions.TOPIC);
        return new TopicRecordSerializer<>(
                topic,
                fields,
                partitioner,
                config.get(KafkaSinkOptions.WRITE_TIMESTAMPS),
                UnwritableRecords.of(config, topic));
    }

    /**
     * The producer properties: connection, batching and buffering, plus the transaction timeout for
     * exactly-once.
     */
    public static Properties producerProperties(ReadableConfig config) {
        Properties props = KafkaClientOptions.connectionProperties(config);
        props.setProperty(
                ProducerConfig.BATCH_SIZE_CONFIG,
                String.valueOf(config.get(KafkaSinkOptions.BATCH_SIZE).getBytes()));
        props.setProperty(
                ProducerConfig.LINGER_MS_CONFIG,
                String.valueOf(config.get(KafkaSinkOptions.LINGER).toMillis()));
        props.setProperty(
                ProducerConfig.BUFFER_MEMORY_CONFIG,
                String.valueOf(config.get(KafkaSinkOptions.BUFFER_MEMORY).getBytes()));
        if (config.get(KafkaSinkOptions.DELIVERY_GUARANTEE) == DeliveryGuarantee.EXACTLY_ONCE) {
            // Never the connector's 1 h default, which a stock broker (15 min max) refuses.
            props.setProperty(
                    ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                    String.valueOf(config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT).toMillis()));
        }
        return props;
    }
}
