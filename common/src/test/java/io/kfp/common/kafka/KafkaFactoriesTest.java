package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.junit.jupiter.api.Test;

class KafkaFactoriesTest {

    private static final JobSpec SPEC =
            JobSpec.builder("relay-job", "test")
                    .owner("tests")
                    .group(SourceOptions.GROUP)
                    .group(KafkaSinkOptions.GROUP)
                    .defaultValue(SourceOptions.TOPICS, "in")
                    .defaultValue(KafkaSinkOptions.TOPIC, "out")
                    .workflow(c -> env -> {});

    private static Configuration config(String... args) {
        return SPEC.configuration(args);
    }

    private static final OutgoingRecord<String> UTF8_VALUE =
            new OutgoingRecord<>() {
                @Override
                public byte[] key(String element) {
                    return null;
                }

                @Override
                public byte[] value(String element) {
                    return element.getBytes(StandardCharsets.UTF_8);
                }
            };

    @Test
    void withCheckpointingOffsetsAreCommittedOnCheckpointsNotByTheConsumer() {
        Properties props = KafkaSourceFactory.consumerProperties(config());
        assertThat(props)
                .containsEntry("bootstrap.servers", "localhost:9092")
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("commit.offsets.on.checkpoint", "true")
                .containsEntry("enable.auto.commit", "false")
                .containsEntry("partition.discovery.interval.ms", "60000")
                .containsEntry("max.poll.records", "5000");
        assertThat(
                        KafkaSourceFactory.consumerProperties(
                                config("--source.max-poll-records", "500")))
                .containsEntry("max.poll.records", "500");
    }

    @Test
    void withoutCheckpointingTheConsumerReallyAutoCommits() {
        Properties props =
                KafkaSourceFactory.consumerProperties(
                        config(
                                "--checkpoint.enabled", "false",
                                "--sink.delivery-guarantee", "at-least-once",
                                "--source.auto-commit-interval", "2 s"));
        assertThat(props)
                .containsEntry("enable.auto.commit", "true")
                .containsEntry("auto.commit.interval.ms", "2000")
                .containsEntry("commit.offsets.on.checkpoint", "false");
        Properties off =
                KafkaSourceFactory.consumerProperties(
                        config(
                                "--checkpoint.enabled", "false",
                                "--sink.delivery-guarantee", "none",
                                "--source.auto-commit", "false"));
        assertThat(off)
                .containsEntry("enable.auto.commit", "false")
                .doesNotContainKey("auto.commit.interval.ms");
    }

    @Test
    void passThroughPropertiesReachEveryClient() {
        Configuration c =
                config(
                        "--kafka.properties.security.protocol", "SASL_SSL",
                        "--source.isolation-level", "read-uncommitted",
                        "--sink.delivery-guarantee", "at-least-once",
                        "--source.partition-discovery-interval", "0 ms");
        assertThat(KafkaSourceFactory.consumerProperties(c))
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("isolation.level", "read_uncommitted")
                .containsEntry("partition.discovery.interval.ms", "-1");
        assertThat(KafkaSinkFactory.producerProperties(c))
                .containsEntry("security.protocol", "SASL_SSL");
        assertThat(KafkaClientOptions.connectionProperties(c))
                .containsEntry("security.protocol", "SASL_SSL");
    }

    @Test
    void exactlyOnceProducerNeverUsesTheConnectorsOneHourTimeout() {
        assertThat(KafkaSinkFactory.producerProperties(config()))
                .containsEntry("transaction.timeout.ms", String.valueOf(15 * 60 * 1000));
        assertThat(
                        KafkaSinkFactory.producerProperties(
                                config("--sink.delivery-guarantee", "at-least-once")))
                .doesNotContainKey("transaction.timeout.ms");
    }

    @Test
    void producersBatchAsConfigured() {
        assertThat(KafkaSinkFactory.producerProperties(config()))
                .containsEntry("batch.size", String.valueOf(64 * 1024))
                .containsEntry("linger.ms", "5")
                .containsEntry("buffer.memory", String.valueOf(8 * 1024 * 1024));
        assertThat(
                        KafkaSinkFactory.producerProperties(
                                config(
                                        "--sink.batch-size",
                                        "1 mb",
                                        "--sink.linger",
                                        "0 ms",
                                        "--sink.buffer-memory",
                                        "64 mb")))
                .containsEntry("batch.size", String.valueOf(1024 * 1024))
                .containsEntry("linger.ms", "0")
                .containsEntry("buffer.memory", String.valueOf(64L * 1024 * 1024));
    }

    @Test
    void derivedIdsComeFromJobNameAndInstance() {
        Configuration c = config("--job.instance-id", "eu-1");
        assertThat(KafkaSinkOptions.transactionalIdPrefix(c)).isEqualTo("kfp.relay-job.eu-1");
        assertThat(SourceOptions.groupId(c)).isEqualTo("kfp.relay-job.eu-1");
        Configuration explicit =
                config("--sink.transactional-id-prefix", "mine", "--source.group-id", "g");
        assertThat(KafkaSinkOptions.transactionalIdPrefix(explicit)).isEqualTo("mine");
        assertThat(SourceOptions.groupId(explicit)).isEqualTo("g");
    }

    @Test
    void sinkCarriesTheGuaranteeAndATransactionalPrefixOnlyForExactlyOnce() throws Exception {
        Sink<String> guarded = KafkaSinkFactory.create(config(), UTF8_VALUE);
        assertThat(guarded)
                .as("exactly-once sinks are guarded")
                .isInstanceOf(GuardedKafkaSink.class);
        KafkaSink<String> exactlyOnce = ((GuardedKafkaSink<String>) guarded).delegate();
        assertThat(field(exactlyOnce, "deliveryGuarantee"))
                .isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(field(exactlyOnce, "transactionalIdPrefix")).isEqualTo("kfp.relay-job.default");
        assertThat((Properties) field(exactlyOnce, "kafkaProducerConfig"))
                .containsEntry("transaction.timeout.ms", "900000");

        KafkaSink<String> atLeastOnce =
                (KafkaSink<String>)
                        KafkaSinkFactory.create(
                                config("--sink.delivery-guarantee", "at-least-once"), UTF8_VALUE);
        assertThat(field(atLeastOnce, "deliveryGuarantee"))
                .isEqualTo(DeliveryGuarantee.AT_LEAST_ONCE);
        assertThat(field(atLeastOnce, "transactionalIdPrefix")).isNull();

        KafkaSink<String> none =
                (KafkaSink<String>)
                        KafkaSinkFactory.create(
                                config("--sink.delivery-guarantee", "none"), UTF8_VALUE);
        assertThat(field(none, "deliveryGuarantee")).isEqualTo(DeliveryGuarantee.NONE);
    }

    @Test
    void sourceSubscribesToTopicsOrAPatternFromTheConfiguredStart() throws Exception {
        KafkaSource<String> byTopics =
                KafkaSourceFactory.create(
                                config("--source.topics", "a, b"),
                                KafkaRecordDeserializationSchema.valueOnly(
                                        new SimpleStringSchema()))
                        .delegate();
        assertThat(byTopics.getProducedType()).isEqualTo(Types.STRING);
        assertThat(field(byTopics, "subscriber").toString()).contains("a", "b");
        assertThat((Properties) field(byTopics, "props"))
                .containsEntry("group.id", "kfp.relay-job.default")
                .containsEntry("isolation.level", "read_committed");
        assertThat(
                        ((OffsetsInitializer) field(byTopics, "startingOffsetsInitializer"))
                                .getAutoOffsetResetStrategy())
                .isEqualTo(OffsetResetStrategy.EARLIEST);

        KafkaSource<String> byPattern =
                KafkaSourceFactory.create(
                                config(
                                        "--source.topics",
                                        "",
                                        "--source.topic-pattern",
                                        "in-.*",
                                        "--source.starting-offsets",
                                        "latest"),
                                KafkaRecordDeserializationSchema.valueOnly(
                                        new SimpleStringSchema()))
                        .delegate();
        assertThat(field(byPattern, "subscriber").getClass().getSimpleName()).contains("Pattern");
        assertThat(
                        ((OffsetsInitializer) field(byPattern, "startingOffsetsInitializer"))
                                .getAutoOffsetResetStrategy())
                .isEqualTo(OffsetResetStrategy.LATEST);
    }

    /** The connectors keep what they were built with private; tests read it to check our wiring. */
    private static Object field(Object target, String name) throws Exception {
        Field field = target.getClass().getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
    }
}
