package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.kafka.UnwritableRecords.Policy;
import io.kfp.common.kafka.UnwritableRecords.TopicLimits;
import java.time.Duration;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Records Kafka would refuse at every try never reach the producer. */
class UnwritableRecordsTest {

    static final SerializationSchema.InitializationContext CONTEXT =
            new SerializationSchema.InitializationContext() {
                @Override
                public MetricGroup getMetricGroup() {
                    return new UnregisteredMetricsGroup();
                }

                @Override
                public UserCodeClassLoader getUserCodeClassLoader() {
                    return null;
                }
            };

    private static final long HOUR = Duration.ofHours(1).toMillis();

    private final SimpleCounter skipped = new SimpleCounter();

    private UnwritableRecords opened(Policy policy, boolean compressed, TopicLimits limits) {
        UnwritableRecords unwritable =
                new UnwritableRecords("out", 1_000_000, compressed, policy, null);
        unwritable.open(
                new UnregisteredMetricsGroup() {
                    @Override
                    public Counter counter(String name) {
                        assertThat(name).isEqualTo(UnwritableRecords.SKIPPED_METRIC);
                        return skipped;
                    }
                },
                limits);
        return unwritable;
    }

    private static ProducerRecord<byte[], byte[]> record(int valueBytes, Long timestamp) {
        return new ProducerRecord<>("out", null, timestamp, "k".getBytes(), new byte[valueBytes]);
    }

    @Test
    void aRecordAboveTheTopicsMaxMessageBytesFailsTheJobWithoutRestartsNamingIt() {
        UnwritableRecords unwritable =
                opened(Policy.FAIL, false, new TopicLimits(2000, true, Long.MAX_VALUE, HOUR));
        ProducerRecord<byte[], byte[]> small = record(1000, null);
        assertThat(unwritable.admit(small, "read from in-3 offset 6")).isSameAs(small);

        assertThatThrownBy(() -> unwritable.admit(record(3000, null), "read from in-3 offset 7"))
                .isInstanceOf(SuppressRestartsException.class)
                .rootCause()
                .hasMessageContaining(
                        "the record read from in-3 offset 7 for topic 'out' is 3087 bytes as the"
                                + " producer counts them, above the topic's max.message.bytes"
                                + " (2000 bytes)")
                .hasMessageContaining("--entity-name out --add-config max.message.bytes=3087")
                .hasMessageContaining("sink.unwritable-records=skip")
                .hasMessageContaining("without restarting");
    }

    @Test
    void theProducersLimitHoldsWhateverTheTopicSays() {
        assertThatThrownBy(
                        () ->
                                opened(Policy.FAIL, true, TopicLimits.UNKNOWN)
                                        .admit(record(1_000_000, null), null))
                .rootCause()
                .hasMessageContaining("above its max.request.size (1000000 bytes)")
                .hasMessageContaining("Raise kafka.properties.max.request.size");
    }

    @Test
    void compressedRecordsAreLeftToTheBrokersOwnSizeCheck() {
        ProducerRecord<byte[], byte[]> big = record(3000, null);
        assertThat(
                        opened(Policy.FAIL, true, new TopicLimits(2000, true, HOUR, HOUR))
                                .admit(big, null))
                .as("3000 zero bytes compress below 2000")
                .isSameAs(big);
    }

    @Test
    void aTimestampOutsideTheTopicsLimitsIsRefusedUnlessTheBrokerStampsTheAppendTime() {
        long now = System.currentTimeMillis();
        TopicLimits createTime = new TopicLimits(1_000_000, true, 2 * HOUR, HOUR);
        UnwritableRecords unwritable = opened(Policy.FAIL, false, createTime);
        ProducerRecord<byte[], byte[]> soon = record(10, now + HOUR / 2);
        ProducerRecord<byte[], byte[]> recent = record(10, now - HOUR);
        assertThat(unwritable.admit(soon, null)).isSameAs(soon);
        assertThat(unwritable.admit(recent, null)).isSameAs(recent);
        // A timestamp in microseconds read as milliseconds: tens of thousands of years ahead.
        assertThatThrownBy(
                        () -> unwritable.admit(record(10, now * 1000), "read from in-0 offset 1"))
                .rootCause()
                .hasMessageContaining(
                        "the record read from in-0 offset 1 for topic 'out' has the timestamp "
                                + now * 1000)
                .hasMessageContaining(
                        "outside the topic's message.timestamp.after.max.ms (3600000 ms)")
                .hasMessageContaining("sink.write-timestamps=false");
        assertThatThrownBy(() -> unwritable.admit(record(10, now - 3 * HOUR), null))
                .rootCause()
                .hasMessageContaining("10800 s before now")
                .hasMessageContaining("message.timestamp.before.max.ms (7200000 ms)");

        ProducerRecord<byte[], byte[]> future = record(10, now * 1000);
        assertThat(
                        opened(Policy.FAIL, false, new TopicLimits(1_000_000, false, HOUR, HOUR))
                                .admit(future, null))
                .as("message.timestamp.type=LogAppendTime: the broker replaces it")
                .isSameAs(future);
    }

    @Test
    void withSkipTheRecordIsLeftOutAndCounted() {
        UnwritableRecords unwritable =
                opened(Policy.SKIP, false, new TopicLimits(2000, true, Long.MAX_VALUE, HOUR));
        assertThat(unwritable.admit(record(3000, null), null)).isNull();
        assertThat(unwritable.admit(record(10, System.currentTimeMillis() + 2 * HOUR), null))
                .isNull();
        assertThat(unwritable.admit(record(10, null), null)).isNotNull();
        assertThat(skipped.getCount()).isEqualTo(2);
    }

    @Test
    void thePolicyAndTheLimitsComeFromTheJobsConfig() {
        Configuration config = new Configuration();
        config.setString("kafka.properties.max.request.size", "500");
        config.setString("relay.oversized-records", "skip");
        assertThat(config.get(KafkaSinkOptions.UNWRITABLE_RECORDS))
                .as("the key this setting had before it covered every sink")
                .isEqualTo(Policy.SKIP);
        UnwritableRecords unwritable = UnwritableRecords.of(config, "out");
        assertThat(unwritable.refusal(record(600, null), 0).reason())
                .contains("above its max.request.size (500 bytes)");
    }
}
