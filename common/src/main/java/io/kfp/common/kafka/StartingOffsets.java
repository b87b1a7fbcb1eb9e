package io.kfp.common.kafka;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a Kafka source starts when it has no checkpoint or savepoint to restore from. (A restored
 * source always resumes from the offsets in its state.)
 *
 * <p>Forms: {@code group-offsets} (the consumer group's committed offsets; partitions without one
 * use {@code source.offset-reset}), {@code earliest}, {@code latest}, {@code timestamp:<epoch
 * millis or ISO-8601 instant>}, {@code specific:<topic>:<partition>:<offset>,...} (partitions not
 * listed start from the group's committed offset, else {@code source.offset-reset}).
 */
public record StartingOffsets(
        Kind kind, long timestampMillis, Map<TopicPartition, Long> specificOffsets) {

    /** The form of a starting-offsets value. */
    public enum Kind {
        GROUP_OFFSETS,
        EARLIEST,
        LATEST,
        TIMESTAMP,
        SPECIFIC
    }

    /** What to do for a partition with no committed (or listed) offset. */
    public enum OffsetReset {
        EARLIEST,
        LATEST,
        /** Fail: the job must not guess where to start. */
        NONE;

        OffsetResetStrategy toKafka() {
            return switch (this) {
                case EARLIEST -> OffsetResetStrategy.EARLIEST;
                case LATEST -> OffsetResetStrategy.LATEST;
                case NONE -> OffsetResetStrategy.NONE;
            };
        }
    }

    public static final String FORMS =
            "group-offsets, earliest, latest, timestamp:<epoch-ms or ISO-8601 such as"
                    + " 2026-01-31T12:00:00Z>, specific:<topic>:<partition>:<offset>,...";

    /**
     * Parses a starting-offsets value.
     *
     * @throws IllegalArgumentException with a message saying what is wrong with which part
     */
    public static StartingOffsets parse(String value) {
        String spec = value.trim();
        String lower = spec.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "group-offsets":
                return new StartingOffsets(Kind.GROUP_OFFSETS, -1, Map.of());
            case "earliest":
                return new StartingOffsets(Kind.EARLIEST, -1, Map.of());
            case "latest":
                return new StartingOffsets(Kind.LATEST, -1, Map.of());
            default:
                break;
        }
        if (lower.startsWith("timestamp:")) {
            return new StartingOffsets(
                    Kind.TIMESTAMP,
                    parseTimestamp(spec.substring("timestamp:".length())),
                    Map.of());
        }
        if (lower.startsWith("specific:")) {
            return new StartingOffsets(
                    Kind.SPECIFIC, -1, parseSpecific(spec.substring("specific:".length())));
        }
        throw new IllegalArgumentException("unknown form '" + spec + "'");
    }

    private static long parseTimestamp(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("timestamp: needs a time after the colon");
        }
        if (t.matches("-?\\d+")) {
            long millis;
            try {
                millis = Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "'" + t + "' is too large for epoch milliseconds");
            }
            if (millis < 0) {
                throw new IllegalArgumentException("epoch milliseconds must not be negative: " + t);
            }
            return millis;
        }
        try {
            return Instant.parse(t).toEpochMilli();
        } catch (DateTimeParseException notInstant) {
            try {
                return OffsetDateTime.parse(t).toInstant().toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "'"
                                + t
                                + "' is neither epoch milliseconds nor an ISO-8601 instant with a"
                                + " zone (such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00)");
            }
        }
    }

    private static Map<TopicPartition, Long> parseSpecific(String list) {
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        if (list.isBlank()) {
            throw new IllegalArgumentException(
                    "specific: needs at least one <topic>:<partition>:<offset>");
        }
        for (String part : list.split(",")) {
            String entry = part.trim();
            int last = entry.lastIndexOf(':');
            int middle = last <= 0 ? -1 : entry.lastIndexOf(':', last - 1);
            if (middle <= 0) {
                throw new IllegalArgumentException(
                        "'" + entry + "' is not <topic>:<partition>:<offset>");
            }
            String topic = entry.substring(0, middle);
            int partition;
            long offset;
            try {
                partition = Integer.parseInt(entry.substring(middle + 1, last));
                offset = Long.parseLong(entry.substring(last + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "'" + entry + "': partition and offset must be whole numbers");
            }
            if (partition < 0 || offset < 0) {
                throw new IllegalArgumentException(
                        "'" + entry + "': partition and offset must not be negative");
            }
            TopicPartition tp = new TopicPartition(topic, partition);
            if (offsets.put(tp, offset) != null) {
                throw new IllegalArgumentException(
                        "'" + topic + ":" + partition + "' is listed twice");
            }
        }
        return Map.copyOf(offsets);
    }

    /** The connector's initializer, with {@code reset} for partitions without an offset. */
    public OffsetsInitializer toInitializer(OffsetReset reset) {
        return switch (kind) {
            case GROUP_OFFSETS -> OffsetsInitializer.committedOffsets(reset.toKafka());
            case EARLIEST -> OffsetsInitializer.earliest();
            case LATEST -> OffsetsInitializer.latest();
            case TIMESTAMP -> OffsetsInitializer.timestamp(timestampMillis);
            case SPECIFIC -> OffsetsInitializer.offsets(specificOffsets, reset.toKafka());
        };
    }
}
