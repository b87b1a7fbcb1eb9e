package io.kfp.common.console;

import io.kfp.common.config.Escapes;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

/**
 * One Kafka record as one line, in the console consumer's order: timestamp, partition, offset,
 * headers, key, value, each only if asked for (the value always).
 */
public final class RecordFormatter implements Serializable {

    private static final long serialVersionUID = 1L;

    private final boolean timestamp;
    private final boolean partition;
    private final boolean offset;
    private final boolean headers;
    private final boolean key;
    private final byte[] separator;
    private final byte[] nullLiteral;
    private final boolean valueOnly;

    /** The line being built; one formatter per subtask, used by its task thread only. */
    private transient ByteLine line;

    RecordFormatter(
            boolean timestamp,
            boolean partition,
            boolean offset,
            boolean headers,
            boolean key,
            String separator,
            String nullLiteral) {
        this.timestamp = timestamp;
        this.partition = partition;
        this.offset = offset;
        this.headers = headers;
        this.key = key;
        this.separator = separator.getBytes(StandardCharsets.UTF_8);
        this.nullLiteral = nullLiteral.getBytes(StandardCharsets.UTF_8);
        this.valueOnly = !timestamp && !partition && !offset && !headers && !key;
    }

    public static RecordFormatter fromConfig(ReadableConfig config) {
        return new RecordFormatter(
                config.get(ConsoleOptions.PRINT_TIMESTAMP),
                config.get(ConsoleOptions.PRINT_PARTITION),
                config.get(ConsoleOptions.PRINT_OFFSET),
                config.get(ConsoleOptions.PRINT_HEADERS),
                config.get(ConsoleOptions.PRINT_KEY),
                Escapes.unescape(config.get(ConsoleOptions.SEPARATOR)),
                config.get(ConsoleOptions.NULL_LITERAL));
    }

    /** The line for {@code record} as UTF-8 bytes, without the line break. */
    public byte[] format(ConsumerRecord<byte[], byte[]> record) {
        byte[] value = record.value();
        if (valueOnly && value != null && EscapedText.isPlain(value)) {
            // The default output of plain text: the value's bytes are the line, not even copied.
            return value;
        }
        if (line == null) {
            line = new ByteLine(256);
        }
        line.clear();
        if (timestamp) {
            line.appendAscii(
                            record.timestampType() == TimestampType.LOG_APPEND_TIME
                                    ? "LogAppendTime:"
                                    : "CreateTime:")
                    .appendAscii(Long.toString(record.timestamp()))
                    .append(separator);
        }
        if (partition) {
            line.appendAscii("Partition:")
                    .appendAscii(Integer.toString(record.partition()))
                    .append(separator);
        }
        if (offset) {
            line.appendAscii("Offset:")
                    .appendAscii(Long.toString(record.offset()))
                    .append(separator);
        }
        if (headers) {
            Header[] all = record.headers().toArray();
            if (all.length == 0) {
                line.appendAscii("NO_HEADERS");
            }
            for (int i = 0; i < all.length; i++) {
                if (i > 0) {
                    line.append((byte) ',');
                }
                // A header key is free text too: a line break in it must not split the record.
                EscapedText.append(all[i].key().getBytes(StandardCharsets.UTF_8), line);
                line.append((byte) ':');
                appendBytes(all[i].value(), line);
            }
            line.append(separator);
        }
        if (key) {
            appendBytes(record.key(), line);
            line.append(separator);
        }
        appendBytes(record.value(), line);
        return line.toByteArray();
    }

    private void appendBytes(byte[] bytes, ByteLine line) {
        if (bytes == null) {
            line.append(nullLiteral);
        } else {
            EscapedText.append(bytes, line);
        }
    }
}
