package io.kfp.ingest;

import io.kfp.common.kafka.OutgoingRecord;
import java.nio.charset.StandardCharsets;

/**
 * A line as a Kafka record, UTF-8 encoded: the whole line as value and no key, or, with a key
 * delimiter, the text before its first occurrence as key and the rest as value.
 */
final class LineRecord implements OutgoingRecord<String> {

    private static final long serialVersionUID = 1L;

    private final String keyDelimiter;

    /** @param keyDelimiter {@code null} for records without key */
    LineRecord(String keyDelimiter) {
        this.keyDelimiter = keyDelimiter;
    }

    @Override
    public byte[] key(String line) {
        if (keyDelimiter == null) {
            return null;
        }
        int at = line.indexOf(keyDelimiter);
        return at < 0 ? null : line.substring(0, at).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] value(String line) {
        if (keyDelimiter != null) {
            int at = line.indexOf(keyDelimiter);
            if (at >= 0) {
                return line.substring(at + keyDelimiter.length()).getBytes(StandardCharsets.UTF_8);
            }
        }
        return line.getBytes(StandardCharsets.UTF_8);
    }
}
