package io.kfp.common.kafka;

import io.kfp.common.checkpoint.CheckpointOptions;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Builds the {@link KafkaSource} every job reads with, from validated {@link SourceOptions}, inside
 * a {@link GuardedKafkaSource} that checks the offsets it resumes from still exist.
 */
public final class KafkaSourceFactory {

    private KafkaSourceFactory() {}

    public static <T> GuardedKafkaSource<T> create(
            ReadableConfig config, KafkaRecordDeserializationSchema<T> deserializer) {
        KafkaSourceBuilder<T> builder =
                KafkaSource.<T>builder()
                        .setProperties(consumerProperties(config))
                        .setGroupId(SourceOptions.groupId(config))
                        .setStartingOffsets(
                                StartingOffsets.parse(config.get(SourceOptions.STARTING_OFFSETS))
                                        .toInitializer(config.get(SourceOptions.OFFSET_RESET)))
                        .setDeserializer(deserializer);
        if (config.get(SourceOptions.BOUNDED)) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        if (SourceOptions.topics(config).isEmpty()) {
            builder.setTopicPattern(Pattern.compile(config.get(SourceOptions.TOPIC_PATTERN)));
        } else {
            builder.setTopics(SourceOptions.topics(config));
        }
        return new GuardedKafkaSource<>(builder.build(), GuardedKafkaSource.Settings.from(config));
    }

    /**
     * The client properties the source is built with. With checkpointing on, offsets are committed
     * on checkpoint completion and the consumer's own auto-commit stays off (the connector's
     * default); with checkpointing off, the connector would also keep auto-commit off unless told
     * otherwise, so nothing would ever be committed: we turn it on explicitly.
     */
    public static Properties consumerProperties(ReadableConfig config) {
        Properties props = KafkaClientOptions.connectionProperties(config);
        props.setProperty(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                config.get(SourceOptions.ISOLATION_LEVEL).toString());
        props.setProperty(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                String.valueOf(config.get(SourceOptions.MAX_POLL_RECORDS)));
        long discoveryMs = config.get(SourceOptions.PARTITION_DISCOVERY_INTERVAL).toMillis();
        props.setProperty(
                KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(),
                String.valueOf(discoveryMs == 0 ? -1 : discoveryMs));
        boolean checkpointing = config.get(CheckpointOptions.ENABLED);
        if (checkpointing) {
            props.setProperty(
                    KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key(),
                    String.valueOf(config.get(SourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT)));
            props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        } else {
            boolean autoCommit = config.get(SourceOptions.AUTO_COMMIT);
            props.setProperty(KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key(), "false");
            props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, String.valueOf(autoCommit));
            if (autoCommit) {
                props.setProperty(
                        "auto.commit.interval.ms",
                        String.valueOf(config.get(SourceOptions.AUTO_COMMIT_INTERVAL).toMillis()));
            }
        }
        return props;
    }
}
