package io.kfp.common.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Settings as the user gave them, before any type conversion: each key's string value and where it
 * came from ("command line", "environment KFP_...", "file job.yaml", "job default"). Later layers
 * replace earlier ones, which is how precedence works.
 */
public final class RawConfig {

    /**
     * A value, its origin, and the key as the user wrote it (Flink's own key for one of our
     * options, e.g. {@code execution.checkpointing.interval}; {@code null} when it is the option's
     * own key), all quoted back in messages.
     */
    public record Entry(String value, String origin, String writtenAs) {}

    private final Map<String, Entry> entries = new LinkedHashMap<>();

    /** Sets {@code key}, replacing a value from a lower-precedence layer. */
    public void put(String key, String value, String origin) {
        put(key, value, origin, key);
    }

    /** Sets {@code key}, given by the user as {@code writtenAs}. */
    public void put(String key, String value, String origin, String writtenAs) {
        entries.remove(key);
        entries.put(key, new Entry(value, origin, key.equals(writtenAs) ? null : writtenAs));
    }

    public Entry entry(String key) {
        return entries.get(key);
    }

    public boolean contains(String key) {
        return entries.containsKey(key);
    }

    public Map<String, Entry> entries() {
        return Collections.unmodifiableMap(entries);
    }

    /** Key to value, without origins. */
    public Map<String, String> values() {
        Map<String, String> values = new LinkedHashMap<>();
        entries.forEach((k, e) -> values.put(k, e.value()));
        return values;
    }
}
