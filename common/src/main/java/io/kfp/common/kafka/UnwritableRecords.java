package io.kfp.common.kafka;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record Kafka refuses for good: larger than the producer's {@code max.request.size} or the
 * output topic's {@code max.message.bytes}, or stamped outside the topic's {@code
 * message.timestamp.before.max.ms} / {@code after.max.ms}. Sent, it would abort the sink's
 * transaction, and the restarted job would read and send it again until its restarts ran out. So it
 * is stopped before the producer, as {@link KafkaSinkOptions#UNWRITABLE_RECORDS} says: the job
 * fails without restarting, naming the record, the limit and the fix; or it is left out, counted
 * ({@value #SKIPPED_METRIC}) and logged. The topic's limits are read when the sink starts (each
 * restart reads them again).
 */
public final class UnwritableRecords implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(UnwritableRecords.class);

    public static final String SKIPPED_METRIC = "unwritableRecordsSkipped";

    /** What to do with a record Kafka would refuse for good. */
    public enum Policy {
        /** Fail the job at once, without restarts, naming the record. */
        FAIL,
        /** Leave it out, count it and log it. */
        SKIP;
    }

    private final String topic;
    private final int maxRequestSize;
    private final boolean compressed;
    private final Policy policy;
    private final Properties admin;

    private transient TopicLimits limits;
    private transient Counter skipped;

    /**
     * @param admin the client properties to read {@code topic}'s limits with; null checks the
     *     producer's limit only
     */
    UnwritableRecords(
            String topic, int maxRequestSize, boolean compressed, Policy policy, Properties admin) {
        this.topic = topic;
        this.maxRequestSize = maxRequestSize;
        this.compressed = compressed;
        this.policy = policy;
        this.admin = admin;
    }

    /** The job's sink settings, for records to {@code topic}. */
    public static UnwritableRecords of(ReadableConfig config, String topic) {
        String compression =
                KafkaClientOptions.clientProperties(config)
                        .getProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none")
                        .trim();
        return new UnwritableRecords(
                topic,
                KafkaSinkOptions.maxRequestSize(config),
                !compression.equalsIgnoreCase("none"),
                config.get(KafkaSinkOptions.UNWRITABLE_RECORDS),
                KafkaClientOptions.connectionProperties(config));
    }

    /** The output topic's limits as the broker states them, with no broker asked. */
    record TopicLimits(int maxMessageBytes, boolean createTime, long beforeMaxMs, long afterMaxMs) {
        static final TopicLimits UNKNOWN =
                new TopicLimits(Integer.MAX_VALUE, false, Long.MAX_VALUE, Long.MAX_VALUE);

        static TopicLimits of(Config config) {
            return new TopicLimits(
                    Integer.parseInt(
                            value(config, TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588")),
                    value(config, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime")
                            .equals("CreateTime"),
                    Long.parseLong(
                            value(
                                    config,
                                    TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
                                    String.valueOf(Long.MAX_VALUE))),
                    Long.parseLong(
                            value(
                                    config,
                                    TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG,
                                    String.valueOf(Long.MAX_VALUE))));
        }

        private static String value(Config config, String name, String otherwise) {
            ConfigEntry entry = config.get(name);
            return entry == null || entry.value() == null ? otherwise : entry.value();
        }
    }

    /** Reads the topic's limits (when it may) and registers the counter in {@code metrics}. */
    public void open(MetricGroup metrics) throws Exception {
        skipped = metrics.counter(SKIPPED_METRIC);
        limits = admin == null ? TopicLimits.UNKNOWN : read();
    }

    /** With the topic's limits given, as {@link #open} would read them. */
    void open(MetricGroup metrics, TopicLimits given) {
        skipped = metrics.counter(SKIPPED_METRIC);
        limits = given;
    }

    private TopicLimits read() throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin client = Admin.create(admin)) {
            return TopicLimits.of(
                    client.describeConfigs(List.of(resource))
                            .all()
                            .get(60, TimeUnit.SECONDS)
                            .get(resource));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthorizationException) {
                LOG.warn(
                        "Cannot read the configuration of output topic '{}' ({}): only the"
                                + " producer's max.request.size is checked before sending; a record"
                                + " above the topic's max.message.bytes or outside its timestamp"
                                + " limits fails the transaction. Allow DescribeConfigs on the topic"
                                + " (kfp acls prints it).",
                        topic,
                        e.getCause().getMessage());
                return TopicLimits.UNKNOWN;
            }
            throw e;
        }
    }

    /**
     * {@code record} if Kafka takes it; else, with skip, {@code null} (counted and logged); with
     * fail, a {@link SuppressRestartsException}. {@code origin} says where the record came from
     * (may be null).
     */
    public ProducerRecord<byte[], byte[]> admit(
            ProducerRecord<byte[], byte[]> record, String origin) {
        Refusal refusal = refusal(record, System.currentTimeMillis());
        if (refusal == null) {
            return record;
        }
        String what =
                "the record "
                        + (origin == null ? "" : origin + " ")
                        + "for topic '"
                        + record.topic()
                        + "' "
                        + refusal.reason();
        if (policy == Policy.FAIL) {
            throw new SuppressRestartsException(
                    new IllegalStateException(
                            what
                                    + ": Kafka would refuse it at every try, aborting the transaction"
                                    + " each time. "
                                    + refusal.fix()
                                    + ", or set "
                                    + KafkaSinkOptions.UNWRITABLE_RECORDS.key()
                                    + "=skip to leave such records out, counted. The job fails"
                                    + " without restarting; resume it from its last checkpoint once"
                                    + " that is done."));
        }
        if (skipped != null) {
            skipped.inc();
        }
        LOG.warn("Skipped {} ({}=skip).", what, KafkaSinkOptions.UNWRITABLE_RECORDS.key());
        return null;
    }

    /** Why Kafka refuses a record, and what to change so that it takes it. */
    record Refusal(String reason, String fix) {}

    /** Why Kafka would refuse {@code record} at {@code now}; null if it would not. */
    Refusal refusal(ProducerRecord<byte[], byte[]> record, long now) {
        TopicLimits topicLimits = limits == null ? TopicLimits.UNKNOWN : limits;
        int size =
                AbstractRecords.estimateSizeInBytesUpperBound(
                        RecordBatch.CURRENT_MAGIC_VALUE,
                        CompressionType.NONE,
                        record.key(),
                        record.value(),
                        record.headers().toArray());
        if (size > maxRequestSize) {
            return new Refusal(
                    "is "
                            + size
                            + " bytes as the producer counts them, above its max.request.size ("
                            + maxRequestSize
                            + " bytes)",
                    "Raise kafka.properties.max.request.size (and the topic's max.message.bytes)");
        }
        // With compression the batch the broker measures is smaller than this: its own check.
        if (!compressed && size > topicLimits.maxMessageBytes()) {
            return new Refusal(
                    "is "
                            + size
                            + " bytes as the producer counts them, above the topic's"
                            + " max.message.bytes ("
                            + topicLimits.maxMessageBytes()
                            + " bytes)",
                    "Raise it (kafka-configs.sh --alter --entity-type topics --entity-name "
                            + record.topic()
                            + " --add-config max.message.bytes="
                            + size
                            + ")");
        }
        Long timestamp = record.timestamp();
        if (timestamp != null && topicLimits.createTime()) {
            if (topicLimits.beforeMaxMs() < now && timestamp < now - topicLimits.beforeMaxMs()) {
                return timestamp(timestamp, now, "before", topicLimits.beforeMaxMs(), record);
            }
            if (topicLimits.afterMaxMs() < Long.MAX_VALUE - now
                    && timestamp > now + topicLimits.afterMaxMs()) {
                return timestamp(timestamp, now, "after", topicLimits.afterMaxMs(), record);
            }
        }
        return null;
    }

    private static Refusal timestamp(
            long timestamp, long now, String side, long maxMs, ProducerRecord<?, ?> record) {
        String setting = "message.timestamp." + side + ".max.ms";
        return new Refusal(
                "has the timestamp "
                        + timestamp
                        + " ("
                        + Instant.ofEpochMilli(timestamp)
                        + "), "
                        + Duration.ofMillis(Math.abs(timestamp - now)).toSeconds()
                        + " s "
                        + side
                        + " now: outside the topic's "
                        + setting
                        + " ("
                        + maxMs
                        + " ms)",
                "Fix the input's producer (a timestamp in micro- or nanoseconds?), raise "
                        + setting
                        + " of '"
                        + record.topic()
                        + "', set sink.write-timestamps=false (the producer stamps the send time)");
    }
}
