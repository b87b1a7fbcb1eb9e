package io.kfp.deploy;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Kafka client for the lab's client host, where the brokers' addresses exist ({@code kfp lab exec
 * operator java ... LabKafka BOOTSTRAP COMMAND}):
 *
 * <ul>
 *   <li>{@code ids TOPIC FROM TO MARK}: one record per id FROM..TO-1 (key and value {@code id-N}),
 *       then on every partition a record keyed and valued {@code MARK-P}: once a job's output holds
 *       every mark, everything produced before them went through it.
 *   <li>{@code values TOPIC}: every committed value, one per line.
 * </ul>
 */
public final class LabKafka {

    public static void main(String[] args) throws Exception {
        Properties client = new Properties();
        client.setProperty("bootstrap.servers", args[0]);
        switch (args[1]) {
            case "ids" ->
                    ids(
                            client,
                            args[2],
                            Integer.parseInt(args[3]),
                            Integer.parseInt(args[4]),
                            args[5]);
            case "values" -> OneHostKfp.values(args[2], client, true).forEach(System.out::println);
            default -> throw new IllegalArgumentException("ids or values, not " + args[1]);
        }
    }

    private static void ids(Properties client, String topic, int from, int to, String mark)
            throws Exception {
        Properties props = new Properties();
        props.putAll(client);
        props.setProperty("acks", "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = from; i < to; i++) {
                byte[] id = ("id-" + i).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, id, id)).get(30, TimeUnit.SECONDS);
            }
            int partitions = producer.partitionsFor(topic).size();
            for (int p = 0; p < partitions; p++) {
                byte[] marked = (mark + "-" + p).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, p, marked, marked))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }
}
