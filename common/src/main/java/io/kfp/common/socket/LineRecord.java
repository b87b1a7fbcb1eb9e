package io.kfp.common.socket;

import io.kfp.common.kafka.OutgoingRecord;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.configuration.ReadableConfig;

/**
 * A line as a Kafka record: its bytes as value and no key, or, with a key delimiter, the bytes
 * before the delimiter's first occurrence (its UTF-8 bytes, found on the line's bytes) as key and
 * the rest as value. A line without the delimiter gets no key.
 */
public final class LineRecord implements OutgoingRecord<byte[]> {

    private static final long serialVersionUID = 1L;

    private final byte[] keyDelimiter;

    /**
     * @param keyDelimiter {@code null} for records without key
     */
    public LineRecord(String keyDelimiter) {
        this.keyDelimiter =
                keyDelimiter == null ? null : keyDelimiter.getBytes(StandardCharsets.UTF_8);
    }

    /** Records keyed as {@code socket.key-delimiter} of {@code config} says. */
    public static LineRecord of(ReadableConfig config) {
        return new LineRecord(config.getOptional(SocketOptions.KEY_DELIMITER).orElse(null));
    }

    @Override
    public byte[] key(byte[] line) {
        if (keyDelimiter == null) {
            return null;
        }
        int at = indexOf(line, keyDelimiter);
        return at < 0 ? null : Arrays.copyOfRange(line, 0, at);
    }

    @Override
    public byte[] value(byte[] line) {
        if (keyDelimiter != null) {
            int at = indexOf(line, keyDelimiter);
            if (at >= 0) {
                return Arrays.copyOfRange(line, at + keyDelimiter.length, line.length);
            }
        }
        return line;
    }

    /** Where {@code pattern} first occurs in {@code bytes}, or -1. */
    static int indexOf(byte[] bytes, byte[] pattern) {
        byte first = pattern[0];
        for (int i = 0, last = bytes.length - pattern.length; i <= last; i++) {
            if (bytes[i] == first
                    && Arrays.equals(bytes, i, i + pattern.length, pattern, 0, pattern.length)) {
                return i;
            }
        }
        return -1;
    }
}
