package io.kfp.common.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.Escapes;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class RecordFormatterTest {

    private static ConsumerRecord<byte[], byte[]> record(
            String key, byte[] value, RecordHeaders headers) {
        return new ConsumerRecord<>(
                "t",
                3,
                42L,
                1_700_000_000_000L,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value,
                headers,
                Optional.empty());
    }

    /** The formatter's bytes as text: they are UTF-8 whatever the record holds. */
    private static String text(byte[] line) {
        return new String(line, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void valueOnlyByDefault() {
        RecordFormatter f = new RecordFormatter(false, false, false, false, false, "\t", "null");
        assertThat(text(f.format(record("k", utf8("hello"), new RecordHeaders()))))
                .isEqualTo("hello");
        assertThat(text(f.format(record("k", null, new RecordHeaders())))).isEqualTo("null");
        assertThat(text(f.format(record("k", utf8("two\nlines, a \\ and é"), new RecordHeaders()))))
                .as("values that are not plain ASCII still go through the escaping")
                .isEqualTo("two\\nlines, a \\\\ and é");
    }

    @Test
    void everyFieldInTheConsoleConsumersOrder() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader("h1", utf8("v1")));
        headers.add(new RecordHeader("h2", new byte[] {(byte) 0xff}));
        RecordFormatter f = new RecordFormatter(true, true, true, true, true, " | ", "<null>");
        assertThat(text(f.format(record(null, utf8("v"), headers))))
                .isEqualTo(
                        "CreateTime:1700000000000 | Partition:3 | Offset:42 | h1:v1,h2:\\xff | <null> | v");
    }

    @Test
    void headerKeysAreEscapedLikeValues() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader("two\nlines\tand \\", utf8("v")));
        RecordFormatter f = new RecordFormatter(false, false, false, true, false, "\t", "null");
        assertThat(text(f.format(record(null, utf8("x"), headers))))
                .isEqualTo("two\\nlines\\tand \\\\:v\tx");
    }

    @Test
    void noHeadersIsSaidExplicitly() {
        RecordFormatter f = new RecordFormatter(false, false, false, true, true, "\t", "null");
        assertThat(text(f.format(record("k", utf8("v"), new RecordHeaders()))))
                .isEqualTo("NO_HEADERS\tk\tv");
    }

    @Test
    void logAppendTimeIsNamed() {
        ConsumerRecord<byte[], byte[]> r =
                new ConsumerRecord<>(
                        "t",
                        0,
                        0L,
                        5L,
                        TimestampType.LOG_APPEND_TIME,
                        -1,
                        -1,
                        null,
                        utf8("v"),
                        new RecordHeaders(),
                        Optional.empty());
        assertThat(
                        text(
                                new RecordFormatter(true, false, false, false, false, ",", "null")
                                        .format(r)))
                .isEqualTo("LogAppendTime:5,v");
    }

    @Test
    void separatorsUnderstandEscapes() {
        assertThat(Escapes.unescape("\\t")).isEqualTo("\t");
        assertThat(Escapes.unescape(" \\\\ ")).isEqualTo(" \\ ");
        assertThat(Escapes.unescape("a\\qb")).isEqualTo("a\\qb");
    }
}
