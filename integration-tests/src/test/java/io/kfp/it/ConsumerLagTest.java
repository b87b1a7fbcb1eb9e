package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.ops.offsets.ConsumerLag;
import io.kfp.testkit.KafkaExtension;
import io.kfp.testkit.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The true lag kfp status and the local pipeline show, on a real broker: a group that has read
 * every record of a transactional topic is not behind, though its committed offsets are (one marker
 * per transaction); aborted records are no lag either; records after the group's offsets are, one
 * by one; a gap longer than the counted limit is shown as its offset difference.
 */
class ConsumerLagTest {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    @Test
    void markersAndAbortedRecordsAreNoLagRecordsAfterTheCommittedOffsetAre() throws Exception {
        String topic = "lag-transactional";
        KAFKA.kafka().createTopics(1, topic);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> producer = transactional("lag-test")) {
            producer.initTransactions();
            for (int t = 0; t < 3; t++) { // offsets 0-9, marker 10; 11-20, 21; 22-31, 32
                producer.beginTransaction();
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, bytes("k"), bytes("v" + i)));
                }
                producer.commitTransaction();
            }
            // The coordinator writes the markers after commitTransaction returns.
            awaitStable(tp, 33);
            // A group that has read all 30 records commits the offset after the last one: the
            // marker's.
            commit("lag-all-read", tp, 32);
            assertThat(lag("lag-all-read", topic))
                    .singleElement()
                    .satisfies(
                            p -> {
                                assertThat(p.stable())
                                        .as("last stable offset, after the last marker")
                                        .isEqualTo(33);
                                assertThat(p.committed()).isEqualTo(32);
                                assertThat(p.lag())
                                        .as("behind by an offset, not by a record")
                                        .isZero();
                                assertThat(p.exact()).isTrue();
                            });

            // An aborted transaction takes offsets 33-37 and marker 38: still nothing to read.
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, bytes("k"), bytes("aborted")));
            }
            producer.flush();
            producer.abortTransaction();
            awaitStable(tp, 39);
            assertThat(lag("lag-all-read", topic).get(0).lag())
                    .as("aborted records are no lag")
                    .isZero();

            // A group stopped after the first transaction: 20 committed records still to read.
            commit("lag-stopped", tp, 11);
            assertThat(lag("lag-stopped", topic).get(0).lag()).isEqualTo(20);

            // A group that never committed: where it starts is the job's choice (earliest, latest),
            // so unknown.
            assertThat(lag("lag-never-committed", topic).get(0))
                    .satisfies(
                            p -> {
                                assertThat(p.committed()).isEqualTo(-1);
                                assertThat(p.lag()).isEqualTo(ConsumerLag.UNKNOWN);
                            });
        }
    }

    @Test
    void aLongGapShowsItsOffsetDifferenceMarkedApproximate() throws Exception {
        String topic = "lag-long";
        KAFKA.kafka().createTopics(1, topic);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < ConsumerLag.COUNTED + 5; i++) {
            records.add(new ProducerRecord<>(topic, bytes("k"), bytes("v")));
        }
        KafkaTopics.produce(KAFKA.bootstrapServers(), records);
        commit("lag-long-group", new TopicPartition(topic, 0), 0);
        assertThat(lag("lag-long-group", topic))
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.lag()).isEqualTo(ConsumerLag.COUNTED + 5);
                            assertThat(p.exact()).isFalse();
                        });
    }

    private static List<ConsumerLag.Partition> lag(String group, String topic) {
        Properties client = new Properties();
        client.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
        try (Admin admin = KAFKA.kafka().admin()) {
            return ConsumerLag.of(admin, client, group, List.of(topic));
        }
    }

    private static void awaitStable(TopicPartition tp, long offset) throws Exception {
        CommonTestUtils.waitUtil(
                () ->
                        KafkaTopics.endOffsets(KAFKA.bootstrapServers(), tp.topic(), true)
                                        .get(tp.partition())
                                == offset,
                Duration.ofSeconds(30),
                Duration.ofMillis(100),
                "the last stable offset of " + tp + " at " + offset);
    }

    private static void commit(String group, TopicPartition tp, long offset) throws Exception {
        try (Admin admin = KAFKA.kafka().admin()) {
            admin.alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(offset)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private static KafkaProducer<byte[], byte[]> transactional(String id) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
        props.setProperty("transactional.id", id);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
