package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.CopyReport.Kind;
import io.kfp.ops.verify.RelayVerifier;
import io.kfp.ops.verify.RelayVerifier.Range;
import io.kfp.testkit.KafkaExtension;
import io.kfp.testkit.KafkaTopics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exactly-once verifier on a real broker: it finds a missing, a duplicated, an altered and an
 * unexpected record planted in a transactional copy, ignores what an aborted transaction wrote, and
 * passes a time range that holds none of them. (ExactlyOnceTest runs it on a real relay.)
 */
class VerifyTest {

    @RegisterExtension static final KafkaExtension KAFKA = new KafkaExtension();

    static final String INPUT = "verify-in";
    static final String OUTPUT = "verify-out";
    static final int RECORDS = 1_000;
    static final long FIRST_TIMESTAMP = System.currentTimeMillis() - 3_600_000;

    @BeforeAll
    static void relayWithOneOfEachFault() throws Exception {
        KAFKA.kafka().createTopics(4, INPUT, OUTPUT);
        List<ProducerRecord<byte[], byte[]>> input = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            input.add(record(INPUT, i, value(i)));
        }
        KafkaTopics.produce(KAFKA.bootstrapServers(), input);

        Properties props = new Properties();
        props.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
        props.setProperty("transactional.id", "verify-test");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < RECORDS; i++) {
                switch (i) {
                    case 10 -> {} // missing
                    case 20 -> { // duplicated
                        producer.send(record(OUTPUT, i, value(i)));
                        producer.send(record(OUTPUT, i, value(i)));
                    }
                    case 30 ->
                            producer.send(
                                    record(OUTPUT, i, "altered".getBytes(StandardCharsets.UTF_8)));
                    default -> producer.send(record(OUTPUT, i, value(i)));
                }
            }
            producer.send(
                    new ProducerRecord<>(
                            OUTPUT,
                            0,
                            FIRST_TIMESTAMP - 1,
                            bytes("stranger"),
                            bytes("unexpected")));
            producer.commitTransaction();
            // What an aborted transaction wrote is not in the output as read_committed readers see
            // it.
            producer.beginTransaction();
            producer.send(record(OUTPUT, 500, value(500)));
            producer.send(
                    new ProducerRecord<>(
                            OUTPUT, 1, FIRST_TIMESTAMP, bytes("aborted"), bytes("aborted")));
            producer.flush();
            producer.abortTransaction();
        }
        // The coordinator writes the markers after commit and abort return: until then the last
        // stable offset hides the committed records too.
        CommonTestUtils.waitUtil(
                () ->
                        KafkaTopics.endOffsets(KAFKA.bootstrapServers(), OUTPUT, true)
                                .equals(
                                        KafkaTopics.endOffsets(
                                                KAFKA.bootstrapServers(), OUTPUT, false)),
                Duration.ofSeconds(30),
                Duration.ofMillis(100),
                "no transaction left open on " + OUTPUT);
    }

    @Test
    void findsTheMissingTheDuplicatedTheAlteredAndTheUnexpectedRecord() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        // 300 records per bucket: the 2,000 records go through bucket files, as millions would.
        CopyReport verdict = verifier(300).verify(INPUT, Range.whole(), OUTPUT, Range.whole());
        verdict.print(new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(verdict.inputRecords()).isEqualTo(RECORDS);
        assertThat(verdict.outputRecords()).isEqualTo(RECORDS + 1);
        assertThat(verdict.matched())
                .as("all but the missing, the duplicated and the altered one")
                .isEqualTo(RECORDS - 3);
        assertThat(verdict.count(Kind.MISSING)).isOne();
        assertThat(verdict.count(Kind.DUPLICATED)).isOne();
        assertThat(verdict.count(Kind.ALTERED)).isOne();
        assertThat(verdict.count(Kind.UNEXPECTED)).isOne();
        assertThat(verdict.clean()).isFalse();
        // Records are produced with partition i mod 4; the input holds them at offset i div 4.
        assertThat(verdict.examples(Kind.MISSING)).containsExactly(INPUT + "-2@2");
        assertThat(verdict.examples(Kind.ALTERED))
                .singleElement()
                .asString()
                .startsWith(INPUT + "-2@7 -> " + OUTPUT + "-2@");
        assertThat(verdict.examples(Kind.DUPLICATED))
                .singleElement()
                .asString()
                .contains("(input " + INPUT + "-0@5)");
        assertThat(verdict.examples(Kind.UNEXPECTED))
                .singleElement()
                .asString()
                .startsWith(OUTPUT + "-0@");
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("  missing", "      " + INPUT + "-2@2", "NOT clean");
    }

    @Test
    void aTimeRangeWithoutThePlantedFaultsIsClean() {
        Range range = Range.between(FIRST_TIMESTAMP + 100, FIRST_TIMESTAMP + 200);
        CopyReport verdict =
                verifier(RelayVerifier.DEFAULT_BUCKET_ENTRIES).verify(INPUT, range, OUTPUT, range);

        assertThat(verdict.inputRecords()).isEqualTo(100);
        assertThat(verdict.matched()).isEqualTo(100);
        assertThat(verdict.clean()).isTrue();
    }

    @Test
    void anOffsetRangeReadsOnlyThePartitionsAndOffsetsItNames() {
        CopyReport verdict =
                verifier(RelayVerifier.DEFAULT_BUCKET_ENTRIES)
                        .verify(
                                INPUT,
                                Range.parseOffsets("1:5-15"),
                                OUTPUT,
                                Range.parseOffsets("3:0-0"));
        assertThat(verdict.inputRecords()).isEqualTo(10);
        assertThat(verdict.outputRecords()).isZero();
        assertThat(verdict.count(Kind.MISSING)).isEqualTo(10);
    }

    private static RelayVerifier verifier(int bucketEntries) {
        Properties client = new Properties();
        client.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
        return new RelayVerifier(client, Path.of("target", "verify-test"), bucketEntries, 3, null);
    }

    /** Record i: partition i mod 4, key key-(i mod 50), a header, timestamp FIRST_TIMESTAMP + i. */
    private static ProducerRecord<byte[], byte[]> record(String topic, int i, byte[] value) {
        Headers headers = new RecordHeaders().add("seq", bytes(String.valueOf(i)));
        return new ProducerRecord<>(
                topic, i % 4, FIRST_TIMESTAMP + i, bytes("key-" + i % 50), value, headers);
    }

    private static byte[] value(int i) {
        return bytes("seq-" + i);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
