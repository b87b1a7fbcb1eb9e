package io.kfp.common.kafka;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka record -> {@link KafkaRecord}, keeping the consumer's byte arrays as they are. A record the
 * producer could never write (larger than its {@code max.request.size}, measured as the producer
 * measures it) is stopped here, where its topic, partition and offset are known, as the job's
 * {@link Oversized} policy says.
 */
public final class KafkaRecordDeserializer
        implements KafkaRecordDeserializationSchema<KafkaRecord> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(KafkaRecordDeserializer.class);

    public static final String OVERSIZED_METRIC = "oversizedRecordsSkipped";

    /** What to do with a record larger than the producer's max.request.size. */
    public enum Oversized {
        /** Fail the job at once, without restarts, naming the record. */
        FAIL,
        /** Skip it, count it (oversizedRecordsSkipped) and log it. */
        SKIP;
    }

    private final int maxRequestSize;
    private final Oversized oversized;
    private final String policyKey;
    private transient Counter skipped;

    /** With Kafka's default max.request.size; oversized records fail the job. */
    public KafkaRecordDeserializer() {
        this(KafkaSinkOptions.DEFAULT_MAX_REQUEST_SIZE, Oversized.FAIL, null);
    }

    /**
     * @param policyKey the job's option that sets {@code oversized}, named in the failure; null
     *     when the job has none
     */
    public KafkaRecordDeserializer(int maxRequestSize, Oversized oversized, String policyKey) {
        this.maxRequestSize = maxRequestSize;
        this.oversized = oversized;
        this.policyKey = policyKey;
    }

    /**
     * The producer's limit from the job's kafka.properties; an oversized record fails the job (a
     * job without a policy option of its own).
     */
    public static KafkaRecordDeserializer of(ReadableConfig config) {
        return new KafkaRecordDeserializer(
                KafkaSinkOptions.maxRequestSize(config), Oversized.FAIL, null);
    }

    /**
     * The producer's limit from the job's kafka.properties, and the policy of the job's option
     * {@code policy}.
     */
    public static KafkaRecordDeserializer of(
            ReadableConfig config, ConfigOption<Oversized> policy) {
        return new KafkaRecordDeserializer(
                KafkaSinkOptions.maxRequestSize(config), config.get(policy), policy.key());
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        skipped = context.getMetricGroup().counter(OVERSIZED_METRIC);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<KafkaRecord> out) {
        Headers headers = record.headers();
        Header[] all = headers == null ? new Header[0] : headers.toArray();
        int size =
                AbstractRecords.estimateSizeInBytesUpperBound(
                        RecordBatch.CURRENT_MAGIC_VALUE,
                        CompressionType.NONE,
                        record.key(),
                        record.value(),
                        all);
        if (size > maxRequestSize) {
            String what =
                    "the record at "
                            + record.topic()
                            + "-"
                            + record.partition()
                            + " offset "
                            + record.offset()
                            + " is "
                            + size
                            + " bytes as the producer counts them, above its max.request.size ("
                            + maxRequestSize
                            + " bytes): it can never be written to the output";
            if (oversized == Oversized.FAIL) {
                // Restarting would read it again and fail again, until the restarts run out.
                throw new SuppressRestartsException(
                        new IllegalStateException(
                                what
                                        + ". Raise kafka.properties.max.request.size (and the output topic's max.message.bytes)"
                                        + (policyKey == null
                                                ? ""
                                                : ", or set "
                                                        + policyKey
                                                        + "=skip to leave such records out, counted")
                                        + ". The job fails without restarting; resume it from its last checkpoint once"
                                        + " that is done."));
            }
            if (skipped != null) {
                skipped.inc();
            }
            LOG.warn("Skipped {} ({}=skip).", what, policyKey);
            return;
        }
        KafkaRecord relayed =
                new KafkaRecord(
                        record.key(), record.value(), record.timestamp(), record.partition());
        if (all.length > 0) {
            relayed.headerKeys = new String[all.length];
            relayed.headerValues = new byte[all.length][];
            for (int i = 0; i < all.length; i++) {
                relayed.headerKeys[i] = all[i].key();
                relayed.headerValues[i] = all[i].value();
            }
        }
        out.collect(relayed);
    }

    @Override
    public TypeInformation<KafkaRecord> getProducedType() {
        return TypeInformation.of(KafkaRecord.class);
    }
}
