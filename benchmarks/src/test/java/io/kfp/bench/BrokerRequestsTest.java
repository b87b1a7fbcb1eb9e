package io.kfp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.testkit.EmbeddedKafka;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerRequestsTest {

    @Test
    void theEmbeddedBrokerCountsEachCommitAndEachProducerInitialised(@TempDir Path dir)
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            kafka.createTopics(4, "bench-requests");
            long[] before = BrokerRequests.counts(true);
            Properties props = Cases.producerProps(kafka.bootstrapServers());
            props.setProperty("transactional.id", "bench-requests-test");
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(
                            props, new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.initTransactions();
                for (int i = 0; i < 3; i++) {
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>("bench-requests", Cases.value(i)));
                    producer.commitTransaction();
                }
            }
            long[] after = BrokerRequests.counts(true);

            double[] perSecond = BrokerRequests.perSecond(before, after, 0.5);
            assertThat(perSecond[BrokerRequests.END_TXN]).isEqualTo(6.0);
            // one initTransactions(): one request, more while the broker still creates its
            // transaction state topic and answers that the coordinator is loading
            assertThat(perSecond[BrokerRequests.INIT_PRODUCER_ID]).isGreaterThanOrEqualTo(2.0);
        }
    }

    @Test
    void withoutABrokerInThisJvmThereIsNothingToCount() {
        assertThat(BrokerRequests.counts(false)).isNull();
        assertThat(BrokerRequests.perSecond(null, null, 1.0)).containsOnly(Double.NaN);
    }
}
