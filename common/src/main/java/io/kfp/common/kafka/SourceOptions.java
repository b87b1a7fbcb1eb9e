package io.kfp.common.kafka;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.JobOptions;
import io.kfp.common.config.OptionGroup;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * What a job reads from Kafka and how: topics, consumer group, start position, isolation. Not named
 * KafkaSourceOptions: the connector has a class of that name, used beside this one.
 */
public final class SourceOptions implements OptionGroup {

    public static final SourceOptions GROUP = new SourceOptions();

    public static final ConfigOption<String> TOPICS =
            key("source.topics")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Comma-separated topics to read. Set this or source.topic-pattern.");

    public static final ConfigOption<String> TOPIC_PATTERN =
            key("source.topic-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Java regular expression; every matching topic is read, including"
                                    + " ones created later (see"
                                    + " source.partition-discovery-interval). Set this or"
                                    + " source.topics.");

    public static final ConfigOption<String> CONSUMER_GROUP =
            key("source.group-id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Consumer group id, under which offsets are committed. Unset:"
                                    + " kfp.<job.name>.<job.instance-id>.");

    public static final ConfigOption<String> STARTING_OFFSETS =
            key("source.starting-offsets")
                    .stringType()
                    .defaultValue("group-offsets")
                    .withDescription(
                            "Where to start when not restoring from a checkpoint or savepoint: "
                                    + StartingOffsets.FORMS
                                    + ". Partitions without an offset use source.offset-reset.");

    public static final ConfigOption<StartingOffsets.OffsetReset> OFFSET_RESET =
            key("source.offset-reset")
                    .enumType(StartingOffsets.OffsetReset.class)
                    .defaultValue(StartingOffsets.OffsetReset.EARLIEST)
                    .withDescription(
                            "Where a partition starts that has no offset, or whose checkpointed offset was deleted by retention: earliest, latest (both with a warning and kfpOffsetsSkipped) or none (fail, naming it).");

    public static final ConfigOption<Boolean> COMMIT_OFFSETS_ON_CHECKPOINT =
            key("source.commit-offsets-on-checkpoint")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Commit the consumed offsets to the consumer group when a checkpoint completes, for lag monitoring and group-offsets starts; recovery uses the checkpoint's offsets.");

    public static final ConfigOption<Boolean> AUTO_COMMIT =
            key("source.auto-commit")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Only when checkpointing is off: let the Kafka consumer commit its"
                                    + " offsets periodically (enable.auto.commit), every"
                                    + " source.auto-commit-interval.");

    public static final ConfigOption<Duration> AUTO_COMMIT_INTERVAL =
            key("source.auto-commit-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "Period of the consumer's auto-commit (auto.commit.interval.ms).");

    public static final ConfigOption<IsolationLevel> ISOLATION_LEVEL =
            key("source.isolation-level")
                    .enumType(IsolationLevel.class)
                    .defaultValue(IsolationLevel.READ_COMMITTED)
                    .withDescription(
                            "read-committed sees only committed transactions (required to keep"
                                    + " exactly-once end to end); read-uncommitted also sees open"
                                    + " and aborted ones.");

    public static final ConfigOption<Duration> PARTITION_DISCOVERY_INTERVAL =
            key("source.partition-discovery-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(60))
                    .withDescription(
                            "How often to look for new partitions and new topics matching"
                                    + " source.topic-pattern. 0 ms turns discovery off.");

    public static final ConfigOption<Boolean> BOUNDED =
            key("source.bounded")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Stop at the end offsets the partitions have when the job starts, then finish (a one-shot copy). Cannot be combined with checkpoint.restore-from (see the README).");

    public static final ConfigOption<Integer> MAX_POLL_RECORDS =
            key("source.max-poll-records")
                    .intType()
                    .defaultValue(5000)
                    .withDescription(
                            "Consumer max.poll.records: the most already-fetched records one poll hands from the fetcher thread to the task thread (Kafka's default is 500).");

    private SourceOptions() {}

    @Override
    public String title() {
        return "Kafka source";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(
                TOPICS,
                TOPIC_PATTERN,
                CONSUMER_GROUP,
                STARTING_OFFSETS,
                OFFSET_RESET,
                COMMIT_OFFSETS_ON_CHECKPOINT,
                AUTO_COMMIT,
                AUTO_COMMIT_INTERVAL,
                ISOLATION_LEVEL,
                PARTITION_DISCOVERY_INTERVAL,
                BOUNDED,
                MAX_POLL_RECORDS);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        boolean hasTopics = !topics(config).isEmpty();
        boolean hasPattern =
                config.getOptional(TOPIC_PATTERN).filter(t -> !t.isBlank()).isPresent();
        if (hasTopics == hasPattern) {
            if (hasTopics) {
                problems.add(
                        TOPIC_PATTERN.key(),
                        "source.topics and source.topic-pattern are both set.",
                        "keep only one of them.");
            } else {
                problems.addMissing(
                        TOPICS.key(), "no input topic set.", "set --source.topics my-topic.");
            }
        }
        if (hasTopics) {
            for (String topic : topics(config)) {
                if (!TopicNames.isValid(topic)) {
                    problems.add(
                            TOPICS.key(),
                            "'" + topic + "' is not a valid Kafka topic name.",
                            TopicNames.RULE + "; separate topics with" + " commas.");
                }
            }
        }
        if (hasPattern) {
            try {
                Pattern.compile(config.get(TOPIC_PATTERN));
            } catch (PatternSyntaxException e) {
                problems.add(
                        TOPIC_PATTERN.key(),
                        "not a valid regular expression: " + e.getDescription() + ".",
                        "write a Java regex such as 'orders-.*'.");
            }
        }
        if (config.get(MAX_POLL_RECORDS) < 1) {
            problems.add(
                    MAX_POLL_RECORDS.key(), "must be at least 1.", "use e.g. 5000 (the default).");
        }
        config.getOptional(CONSUMER_GROUP)
                .filter(String::isBlank)
                .ifPresent(
                        g ->
                                problems.add(
                                        CONSUMER_GROUP.key(),
                                        "must not be empty.",
                                        "set a group id, or remove the setting for the default."));
        try {
            StartingOffsets start = StartingOffsets.parse(config.get(STARTING_OFFSETS));
            if (start.kind() == StartingOffsets.Kind.SPECIFIC && hasTopics) {
                List<String> topics = topics(config);
                for (TopicPartition tp : start.specificOffsets().keySet()) {
                    if (!topics.contains(tp.topic())) {
                        problems.add(
                                STARTING_OFFSETS.key(),
                                "topic '"
                                        + tp.topic()
                                        + "' is not one of source.topics "
                                        + topics
                                        + ".",
                                "list offsets only for the topics the job reads.");
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            problems.add(
                    STARTING_OFFSETS.key(),
                    e.getMessage() + ".",
                    "use one of: " + StartingOffsets.FORMS + ".");
        }
        if (config.get(BOUNDED) && config.getOptional(CheckpointOptions.RESTORE_FROM).isPresent()) {
            problems.add(
                    BOUNDED.key(),
                    "a bounded Kafka source restored from a savepoint or checkpoint never finishes"
                            + " (Kafka connector 5.0.0, FLINK-31006): it would copy the rest and then"
                            + " keep running.",
                    "resume with source.bounded=false and stop the job once it has caught up, or"
                            + " start a new bounded copy without checkpoint.restore-from.");
        }
        if (!config.get(CheckpointOptions.ENABLED)
                && config.get(AUTO_COMMIT)
                && config.get(AUTO_COMMIT_INTERVAL).compareTo(Duration.ofMillis(1)) < 0) {
            problems.add(AUTO_COMMIT_INTERVAL.key(), "must be positive.", "use e.g. 5 s.");
        }
        if (config.get(PARTITION_DISCOVERY_INTERVAL).isNegative()) {
            problems.add(
                    PARTITION_DISCOVERY_INTERVAL.key(),
                    "must not be negative.",
                    "use e.g. 60 s, or 0 ms to turn discovery off.");
        }
    }

    /** The configured topics, trimmed; empty if a pattern is used. */
    public static List<String> topics(ReadableConfig config) {
        return config.getOptional(TOPICS)
                .map(
                        t ->
                                Arrays.stream(t.split("[,;]"))
                                        .map(String::trim)
                                        .filter(s -> !s.isEmpty())
                                        .toList())
                .orElse(List.of());
    }

    /** The input as people write it in operator names: the topic list, or /pattern/. */
    public static String describeInput(ReadableConfig config) {
        List<String> topics = topics(config);
        return topics.isEmpty()
                ? "/" + config.getOptional(TOPIC_PATTERN).orElse("") + "/"
                : String.join(",", topics);
    }

    /** The group id: as configured, or derived from the job's name and instance id. */
    public static String groupId(ReadableConfig config) {
        return config.getOptional(CONSUMER_GROUP).orElseGet(() -> JobOptions.qualifiedName(config));
    }
}
