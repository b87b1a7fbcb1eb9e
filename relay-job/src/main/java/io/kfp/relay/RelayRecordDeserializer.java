package io.kfp.relay;

import io.kfp.common.kafka.KafkaSinkOptions;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
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
 * Kafka record -> {@link RelayRecord}, keeping the consumer's byte arrays as they are. A record the
 * producer could never write (larger than its {@code max.request.size}, measured as the producer
 * measures it) is stopped here, where its topic, partition and offset are known.
 */
public final class RelayRecordDeserializer
        implements KafkaRecordDeserializationSchema<RelayRecord> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RelayRecordDeserializer.class);

    public static final String OVERSIZED_METRIC = "oversizedRecordsSkipped";

    private final int maxRequestSize;
    private final RelayOptions.OversizedRecords oversized;
    private transient Counter skipped;

    /** With Kafka's default max.request.size; oversized records fail the job. */
    public RelayRecordDeserializer() {
        this(KafkaSinkOptions.DEFAULT_MAX_REQUEST_SIZE, RelayOptions.OversizedRecords.FAIL);
    }

    RelayRecordDeserializer(int maxRequestSize, RelayOptions.OversizedRecords oversized) {
        this.maxRequestSize = maxRequestSize;
        this.oversized = oversized;
    }

    /** The producer's limit from the job's kafka.properties, and the job's policy. */
    public static RelayRecordDeserializer of(ReadableConfig config) {
        return new RelayRecordDeserializer(
                KafkaSinkOptions.maxRequestSize(config),
                config.get(RelayOptions.OVERSIZED_RECORDS));
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        skipped = context.getMetricGroup().counter(OVERSIZED_METRIC);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RelayRecord> out) {
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
            if (oversized == RelayOptions.OversizedRecords.FAIL) {
                // Restarting would read it again and fail again, until the restarts run out.
                throw new SuppressRestartsException(
                        new IllegalStateException(
                                what
                                        + ". Raise kafka.properties.max.request.size (and the output topic's max.message.bytes), or set"
                                        + " relay.oversized-records=skip to leave such records out, counted. The job fails without"
                                        + " restarting; resume it from its last checkpoint once that is done."));
            }
            if (skipped != null) {
                skipped.inc();
            }
            LOG.warn("Skipped {} (relay.oversized-records=skip).", what);
            return;
        }
        RelayRecord relayed =
                new RelayRecord(
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
    public TypeInformation<RelayRecord> getProducedType() {
        return TypeInformation.of(RelayRecord.class);
    }
}
