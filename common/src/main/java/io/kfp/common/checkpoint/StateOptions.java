package io.kfp.common.checkpoint;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.OptionGroup;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;

/** Where operator state lives between checkpoints. */
public final class StateOptions implements OptionGroup {

    public static final StateOptions GROUP = new StateOptions();

    /** State backends we support. */
    public enum Backend {
        /** On local disk, off-heap: state larger than memory, incremental checkpoints. */
        ROCKSDB,
        /** On the JVM heap: fastest, bounded by memory, full checkpoints. */
        HASHMAP;
    }

    public static final ConfigOption<Backend> BACKEND =
            key("state.backend")
                    .enumType(Backend.class)
                    .defaultValue(Backend.ROCKSDB)
                    .withFallbackKeys("state.backend.type")
                    .withDescription(
                            "rocksdb keeps keyed state on local disk (large state, incremental"
                                    + " checkpoints); hashmap keeps it on the heap (small state,"
                                    + " fastest).");

    public static final ConfigOption<Boolean> INCREMENTAL =
            key("state.incremental")
                    .booleanType()
                    .defaultValue(true)
                    .withFallbackKeys("execution.checkpointing.incremental")
                    .withDescription(
                            "RocksDB uploads only the files changed since the last checkpoint."
                                    + " Ignored by hashmap.");

    private StateOptions() {}

    @Override
    public String title() {
        return "State";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(BACKEND, INCREMENTAL);
    }
}
