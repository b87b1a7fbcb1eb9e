package io.kfp.ops.verify;

import io.kfp.ops.offsets.CommittedRanges;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Checks that a relay's output topic holds each record of its input topic exactly once, byte for
 * byte: key, value, headers and timestamp. Both are read {@code read_committed}, as the relay's own
 * readers see them, over the ranges {@link Range} selects; partitions and order are not compared (a
 * relay may repartition). Memory stays bounded for any number of records: see {@link
 * RecordMatcher}. Used by {@code kfp verify} and by the tests that prove the relay.
 */
public final class RelayVerifier {

    /** Records held in memory at once (input and output together): about 48 bytes each. */
    public static final int DEFAULT_BUCKET_ENTRIES = 500_000;

    /** How long reading may stand still before the verifier gives up. */
    static final Duration STALL_TIMEOUT = Duration.ofSeconds(60);

    private final Properties client;
    private final Path workDir;
    private final int bucketEntries;
    private final int examples;
    private final PrintStream progress;

    /**
     * @param client the Kafka client settings (bootstrap servers, security); the verifier adds its
     *     own deserializers and isolation
     * @param workDir where bucket files go when the records do not fit in memory at once
     * @param progress where to say what is being read, or null
     */
    public RelayVerifier(
            Properties client,
            Path workDir,
            int bucketEntries,
            int examples,
            PrintStream progress) {
        if (bucketEntries < 1) {
            throw new IllegalArgumentException(
                    "bucketEntries must be at least 1, not " + bucketEntries);
        }
        this.client = client;
        this.workDir = workDir;
        this.bucketEntries = bucketEntries;
        this.examples = examples;
        this.progress = progress;
    }

    /**
     * Which records of a topic to read: a time range (record timestamps), offset ranges per
     * partition, or everything.
     */
    public record Range(Long sinceMs, Long untilMs, Map<Integer, long[]> offsets) {

        /** Every record the topic holds now, up to its last stable offset. */
        public static Range whole() {
            return new Range(null, null, null);
        }

        /**
         * Records with a timestamp in [since, until), wherever they sit; either may be null: from
         * the start, to the end.
         */
        public static Range between(Long sinceMs, Long untilMs) {
            return new Range(sinceMs, untilMs, null);
        }

        /**
         * Only the partitions listed, each {@code PARTITION:START[-END]} (END exclusive; none: to
         * the last stable offset), comma-separated: {@code 0:1200-5000,1:1180}.
         */
        public static Range parseOffsets(String spec) {
            Map<Integer, long[]> offsets = new TreeMap<>();
            for (String part : spec.split(",")) {
                Matcher m = Pattern.compile("\\s*(\\d+):(\\d+)(?:-(\\d+))?\\s*").matcher(part);
                if (!m.matches()) {
                    throw new IllegalArgumentException(
                            "'"
                                    + part.trim()
                                    + "' is not PARTITION:START[-END], e.g. 0:1200-5000 or 1:1180");
                }
                long start = Long.parseLong(m.group(2));
                long end = m.group(3) == null ? -1 : Long.parseLong(m.group(3));
                if (end >= 0 && end < start) {
                    throw new IllegalArgumentException(
                            "'" + part.trim() + "' ends before it starts");
                }
                if (offsets.put(Integer.parseInt(m.group(1)), new long[] {start, end}) != null) {
                    throw new IllegalArgumentException(
                            "partition " + m.group(1) + " is listed twice");
                }
            }
            return new Range(null, null, offsets);
        }
    }

    public CopyReport verify(String from, Range fromRange, String to, Range toRange) {
        long started = System.nanoTime();
        CopyReport.Builder verdict = new CopyReport.Builder(from, to, examples);
        try (KafkaConsumer<byte[], byte[]> consumer =
                CommittedRanges.consumer(client, "kfp-verify")) {
            Map<TopicPartition, long[]> input = resolve(consumer, from, fromRange);
            Map<TopicPartition, long[]> output = resolve(consumer, to, toRange);
            long expected = span(input) + span(output);
            try (RecordMatcher matcher =
                    new RecordMatcher(expected, bucketEntries, workDir, verdict)) {
                verdict.buckets(matcher.buckets());
                verdict.read(false, read(consumer, from, input, fromRange, false, matcher));
                verdict.read(true, read(consumer, to, output, toRange, true, matcher));
                matcher.match();
            }
        }
        return verdict.build(Duration.ofNanos(System.nanoTime() - started));
    }

    /**
     * The [start, end) offsets to read of each selected partition, ends no further than the last
     * stable offset.
     */
    private Map<TopicPartition, long[]> resolve(
            KafkaConsumer<byte[], byte[]> consumer, String topic, Range range) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException(
                    "topic " + topic + " does not exist (or this client may not describe it)");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        partitions.sort(Comparator.comparingInt(TopicPartition::partition));
        if (range.offsets() != null) {
            for (int p : range.offsets().keySet()) {
                if (partitions.stream().noneMatch(tp -> tp.partition() == p)) {
                    throw new IllegalArgumentException(
                            topic
                                    + " has no partition "
                                    + p
                                    + " (it has "
                                    + partitions.size()
                                    + ")");
                }
            }
            partitions.removeIf(tp -> !range.offsets().containsKey(tp.partition()));
        }
        Map<TopicPartition, Long> beginning =
                consumer.beginningOffsets(partitions, Duration.ofSeconds(30));
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        Map<TopicPartition, Long> since =
                range.sinceMs() == null ? null : times(consumer, partitions, range.sinceMs());
        Map<TopicPartition, long[]> resolved = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            long stable = end.get(tp);
            long start = beginning.get(tp);
            long stop = stable;
            if (range.offsets() != null) {
                long[] asked = range.offsets().get(tp.partition());
                if (asked[0] < start) {
                    throw new IllegalArgumentException(
                            tp
                                    + " starts at offset "
                                    + start
                                    + " now (older records are deleted): "
                                    + asked[0]
                                    + " cannot be read");
                }
                start = asked[0];
                if (asked[1] >= 0) {
                    if (asked[1] > stable && progress != null) {
                        progress.println(
                                tp
                                        + ": reading to its last stable offset "
                                        + stable
                                        + ", not "
                                        + asked[1]
                                        + ", which it has not reached");
                    }
                    stop = Math.min(asked[1], stable);
                }
            }
            if (since != null) {
                start = Math.max(start, since.getOrDefault(tp, stable));
            }

            resolved.put(tp, new long[] {start, Math.max(start, stop)});
        }
        return resolved;
    }

    /**
     * Per partition, the first offset whose timestamp is at or after {@code timestampMs}; absent
     * when there is none.
     */
    private static Map<TopicPartition, Long> times(
            KafkaConsumer<byte[], byte[]> consumer,
            List<TopicPartition> partitions,
            long timestampMs) {
        Map<TopicPartition, Long> query = new LinkedHashMap<>();
        partitions.forEach(tp -> query.put(tp, timestampMs));
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndTimestamp> e :
                consumer.offsetsForTimes(query, Duration.ofSeconds(30)).entrySet()) {
            if (e.getValue() != null) {
                offsets.put(e.getKey(), e.getValue().offset());
            }
        }
        return offsets;
    }

    private static long span(Map<TopicPartition, long[]> ranges) {
        return ranges.values().stream().mapToLong(r -> r[1] - r[0]).sum();
    }

    /**
     * Reads each partition from its start to its end into the matcher; returns how many records
     * were read. A time range filters by timestamp too: within a partition timestamps need not grow
     * with offsets (several producers, a relay's parallel writers), and a record belongs to the
     * range by its timestamp wherever it sits. Its start offset is exact (the first offset with a
     * timestamp at or after since); its end is the last stable offset, as a record before until may
     * sit anywhere.
     */
    private long read(
            KafkaConsumer<byte[], byte[]> consumer,
            String topic,
            Map<TopicPartition, long[]> ranges,
            Range range,
            boolean output,
            RecordMatcher matcher) {
        long started = System.nanoTime();
        long since = range.sinceMs() == null ? Long.MIN_VALUE : range.sinceMs();
        long until = range.untilMs() == null ? Long.MAX_VALUE : range.untilMs();
        long[] records = {0};
        List<TopicPartition> unread;
        try {
            unread =
                    CommittedRanges.read(
                            consumer,
                            ranges,
                            STALL_TIMEOUT,
                            r -> {
                                if (r.timestamp() >= since && r.timestamp() < until) {
                                    matcher.add(
                                            output,
                                            r.partition(),
                                            r.offset(),
                                            r.key(),
                                            r.value(),
                                            r.headers(),
                                            r.timestamp());
                                    records[0]++;
                                }
                            });
        } catch (OffsetOutOfRangeException e) {
            throw new IllegalStateException(
                    "records of "
                            + topic
                            + " were deleted while they were read (retention): "
                            + e.offsetOutOfRangePartitions()
                            + "; verify a range that is not about to expire (--since, --from-offsets)",
                    e);
        }
        if (!unread.isEmpty()) {
            throw new IllegalStateException(
                    "reading "
                            + topic
                            + " stood still for "
                            + STALL_TIMEOUT.toSeconds()
                            + " s at "
                            + positions(consumer, unread)
                            + " before the ends "
                            + ends(ranges, unread)
                            + ": is the broker up?");
        }
        if (progress != null) {
            progress.printf(
                    Locale.ROOT,
                    "read %d records of %s (%d partitions) in %.1f s%n",
                    records[0],
                    topic,
                    ranges.size(),
                    (System.nanoTime() - started) / 1e9);
        }
        return records[0];
    }

    private static Map<Integer, Long> positions(
            KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions) {
        Map<Integer, Long> at = new TreeMap<>();
        partitions.forEach(tp -> at.put(tp.partition(), consumer.position(tp)));
        return at;
    }

    private static Map<Integer, Long> ends(
            Map<TopicPartition, long[]> ranges, List<TopicPartition> partitions) {
        Map<Integer, Long> at = new TreeMap<>();
        partitions.forEach(tp -> at.put(tp.partition(), ranges.get(tp)[1]));
        return at;
    }
}
