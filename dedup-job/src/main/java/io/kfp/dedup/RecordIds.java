package io.kfp.dedup;

import io.kfp.common.kafka.KafkaRecord;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ReadableConfig;

/**
 * A record's id as dedup.id-from says, as a String that keeps its bytes one to one (ISO-8859-1), so
 * that binary keys are ids too; null when it has none.
 */
final class RecordIds implements Serializable {

    private static final long serialVersionUID = 1L;

    private final DedupOptions.IdFrom from;
    private final String pattern;
    private transient Pattern compiled;

    RecordIds(DedupOptions.IdFrom from, String pattern) {
        this.from = from;
        this.pattern = pattern;
    }

    static RecordIds of(ReadableConfig config) {
        return new RecordIds(
                config.get(DedupOptions.ID_FROM),
                config.getOptional(DedupOptions.ID_PATTERN).orElse(null));
    }

    String idOf(KafkaRecord record) {
        if (from == DedupOptions.IdFrom.KEY) {
            return record.key == null ? null : new String(record.key, StandardCharsets.ISO_8859_1);
        }
        if (record.value == null) {
            return null;
        }
        if (compiled == null) {
            compiled = Pattern.compile(pattern);
        }
        Matcher matcher = compiled.matcher(new String(record.value, StandardCharsets.UTF_8));
        return matcher.find() && matcher.group(1) != null ? matcher.group(1) : null;
    }
}
