package io.kfp.relay;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SinkPartitioner;
import io.kfp.common.kafka.TopicNames;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/** What the relay does between reading and writing. */
public final class RelayOptions implements OptionGroup {

    public static final RelayOptions GROUP = new RelayOptions();

    /** The stage between source and sink. */
    public enum Transform {
        /** Records pass unchanged, byte for byte. */
        NONE,
        /** Tumbling event-time windows counting records per key. */
        WINDOW_COUNT;
    }

    public static final ConfigOption<Transform> TRANSFORM =
            key("relay.transform")
                    .enumType(Transform.class)
                    .defaultValue(Transform.NONE)
                    .withDescription(
                            "none: every record is copied unchanged (key, value, headers,"
                                    + " timestamp). window-count: one record per key and tumbling"
                                    + " event-time window, key = the input key, value ="
                                    + " {\"window_start\":\"...\",\"window_end\":\"...\",\"count\":N},"
                                    + " counted in RocksDB keyed state.");

    public static final ConfigOption<Boolean> SAME_PARTITION =
            key("relay.same-partition")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Write each record to the partition number it was read from (input"
                                    + " partition i -> output partition i). The output topic needs"
                                    + " at least as many partitions as the input (checked before"
                                    + " start). Off: Kafka's default partitioning by key.");

    public static final ConfigOption<Duration> WINDOW_SIZE =
            key("relay.window-size")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription("window-count: length of each tumbling window.");

    public static final ConfigOption<Duration> MAX_OUT_OF_ORDERNESS =
            key("relay.max-out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "window-count: how far behind the newest timestamp a record may be and"
                                    + " still count. A window closes this long after its end;"
                                    + " records arriving later are late.");

    public static final ConfigOption<Duration> IDLE_TIMEOUT =
            key("relay.idle-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "window-count: a partition without records for this long stops holding"
                                    + " back the watermark, so one idle partition cannot stall every"
                                    + " window.");

    public static final ConfigOption<Duration> MAX_FUTURE =
            key("relay.max-future")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription(
                            "window-count: a record stamped further than this ahead of the"
                                    + " TaskManager's clock (microseconds taken as milliseconds, a"
                                    + " producer's wrong clock) does not move the watermark - it"
                                    + " would make every later record late - and goes where late"
                                    + " records go, counted in futureRecords.");

    public static final ConfigOption<String> LATE_TOPIC =
            key("relay.late-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "window-count: topic that receives late records unchanged (exactly-once"
                                    + " like the main output). Unset: late records are only counted"
                                    + " (metric lateRecords) and logged, never dropped silently.");

    private RelayOptions() {}

    @Override
    public String title() {
        return "Relay";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(
                TRANSFORM,
                SAME_PARTITION,
                WINDOW_SIZE,
                MAX_OUT_OF_ORDERNESS,
                MAX_FUTURE,
                IDLE_TIMEOUT,
                LATE_TOPIC);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        boolean windowCount = config.get(TRANSFORM) == Transform.WINDOW_COUNT;
        if (config.get(SAME_PARTITION)) {
            if (windowCount) {
                problems.add(
                        SAME_PARTITION.key(),
                        "window-count output is keyed by window, not read from a partition.",
                        "turn relay.same-partition off, or use relay.transform=none.");
            }
            if (config.get(KafkaSinkOptions.PARTITIONER) != SinkPartitioner.KAFKA) {
                problems.add(
                        SAME_PARTITION.key(),
                        "conflicts with sink.partitioner="
                                + ConfigValidator.text(config.get(KafkaSinkOptions.PARTITIONER))
                                + ".",
                        "choose one: relay.same-partition=true or a sink.partitioner.");
            }
        }
        if (config.get(WINDOW_SIZE).compareTo(Duration.ofMillis(1)) < 0) {
            problems.add(WINDOW_SIZE.key(), "must be positive.", "use e.g. 1 min.");
        }
        if (config.get(MAX_FUTURE).isNegative()) {
            problems.add(MAX_FUTURE.key(), "must not be negative.", "use e.g. 1 h (the default).");
        }
        if (config.get(MAX_OUT_OF_ORDERNESS).isNegative()) {
            problems.add(
                    MAX_OUT_OF_ORDERNESS.key(), "must not be negative.", "use e.g. 5 s, or 0 ms.");
        }
        if (config.get(IDLE_TIMEOUT).compareTo(Duration.ofMillis(1)) < 0) {
            problems.add(IDLE_TIMEOUT.key(), "must be positive.", "use e.g. 30 s.");
        }
        config.getOptional(LATE_TOPIC)
                .ifPresent(
                        topic -> {
                            if (!windowCount) {
                                problems.add(
                                        LATE_TOPIC.key(),
                                        "only window-count has late records.",
                                        "remove it, or set relay.transform=window-count.");
                            } else if (!TopicNames.isValid(topic)) {
                                problems.add(
                                        LATE_TOPIC.key(),
                                        "not a valid Kafka topic name.",
                                        TopicNames.RULE + ".");
                            } else if (topic.equals(config.get(KafkaSinkOptions.TOPIC))) {
                                problems.add(
                                        LATE_TOPIC.key(),
                                        "is the same topic as sink.topic.",
                                        "send late records to a topic of their own.");
                            }
                        });
    }
}
