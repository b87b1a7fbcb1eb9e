package io.kfp.deploy.lab.drill;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the drill's input at a steady rate: record {@code i} has the value {@code seq-i} and the
 * key {@code key-(i mod KEYS)}, so the observer can tell each record and the order per key. It
 * stops once it has written {@code records} and the faults are done, whichever comes last.
 */
final class SequenceProducer implements Runnable {
    static final int KEYS = 50;

    private final Properties kafkaClient;
    private final String topic;
    private final long records;
    private final int rate;
    private final AtomicBoolean faultsDone = new AtomicBoolean(false);
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong sendErrors = new AtomicLong();

    /**
     * @param kafkaClient the client settings of the lab's brokers; the producer's own are added
     * @param rate records per second
     */
    SequenceProducer(Properties kafkaClient, String topic, long records, int rate) {
        this.kafkaClient = kafkaClient;
        this.topic = topic;
        this.records = records;
        this.rate = rate;
    }

    /** From now on the producer stops once it has written {@code records}. */
    void faultsDone() {
        faultsDone.set(true);
    }

    /** Records handed to the producer so far, which are also the next sequence number. */
    long produced() {
        return produced.get();
    }

    long sendErrors() {
        return sendErrors.get();
    }

    @Override
    public void run() {
        Properties props = new Properties();
        props.putAll(kafkaClient);
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        // Idempotent: a send retried across a broker failure is written once, in order.
        props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.setProperty(
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                String.valueOf(Duration.ofMinutes(10).toMillis()));
        // 50 ms batches: at 1,000 records/s Kafka's 5 ms makes ~200 produce requests a second,
        // each replicated twice - most of the three brokers' CPU on the shared cores.
        props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "50");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            long start = System.nanoTime();
            long i = 0;
            while (i < records || !faultsDone.get()) {
                long due = start + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                ("key-" + (i % KEYS)).getBytes(StandardCharsets.UTF_8),
                                ("seq-" + i).getBytes(StandardCharsets.UTF_8)),
                        (m, e) -> {
                            if (e != null) {
                                sendErrors.incrementAndGet();
                            }
                        });
                produced.set(++i);
            }
            producer.flush();
        } catch (InterruptedException e) {
            // The drill is being torn down: what was sent stays counted in produced.
            Thread.currentThread().interrupt();
        }
    }
}
