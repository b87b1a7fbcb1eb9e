package io.kfp.bench;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Watches one run's output topic with a read_committed consumer from the start, so "done" means
 * what a downstream reader sees: the backlog is through when all RECORDS sequence numbers have
 * become visible (window-count: when the visible counts add up to RECORDS), and the run is complete
 * when the latency phase's records have too. It fails the run on a duplicate or a stranger, and
 * times every latency-phase record from its timestamp to the moment it became visible, in a
 * Micrometer timer with percentiles.
 */
final class Observer implements AutoCloseable {

    private final String output;
    private final long records;
    private final long expected;
    private final boolean windowCounts;
    private final BitSet seen;
    private final Set<String> windows = new HashSet<>();
    private final Timer latency;
    private final Thread thread;
    private volatile boolean stop;
    private volatile long visible;
    private volatile long firstVisibleNanos;
    private volatile long backlogDoneNanos;
    private volatile double cpuSeconds;
    private volatile String failure;
    private long backlogSeen;

    /**
     * @param live records of the latency phase expected after the backlog (sequence numbers from
     *     RECORDS on), 0 for none
     * @param windowCounts the output holds window counts, not copies
     */
    Observer(String bootstrap, String output, long records, long live, boolean windowCounts) {
        this.output = output;
        this.records = records;
        this.expected = records + live;
        this.windowCounts = windowCounts;
        this.seen = new BitSet(Math.toIntExact(expected));
        this.latency =
                Timer.builder("bench.visible.latency")
                        .description("record timestamp -> visible to a read_committed consumer")
                        .publishPercentiles(0.5, 0.99)
                        .percentilePrecision(2)
                        .distributionStatisticExpiry(Duration.ofHours(1))
                        .distributionStatisticBufferLength(1)
                        .register(new SimpleMeterRegistry());
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("isolation.level", "read_committed");
        props.setProperty("max.poll.records", "10000");
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(output)
                .forEach(p -> partitions.add(new TopicPartition(output, p.partition())));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.thread = new Thread(() -> watch(consumer), "observer-" + output);
        thread.start();
    }

    private void watch(KafkaConsumer<byte[], byte[]> consumer) {
        try (consumer) {
            while (!stop && visible < expected && failure == null) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                    if (failure != null) {
                        break;
                    }
                    long now = System.currentTimeMillis();
                    if (firstVisibleNanos == 0) {
                        firstVisibleNanos = System.nanoTime();
                    }
                    if (windowCounts) {
                        countWindow(r);
                    } else {
                        copied(r, now);
                    }
                }
                if (backlogDoneNanos == 0
                        && (windowCounts ? visible >= records : backlogSeen == records)) {
                    cpuSeconds = threadCpuSeconds();
                    backlogDoneNanos = System.nanoTime();
                }
            }
        } catch (RuntimeException e) {
            failure = output + ": observer failed: " + e;
        }
    }

    private static double threadCpuSeconds() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9;
    }

    private void copied(ConsumerRecord<byte[], byte[]> r, long now) {
        long seq = Cases.sequence(r.value(), 0);
        if (seq < 0 || seq >= expected) {
            failure =
                    output
                            + ": a record without a sequence number below "
                            + expected
                            + " at "
                            + r.partition()
                            + "/"
                            + r.offset();
            return;
        }
        if (seen.get((int) seq)) {
            failure =
                    output
                            + ": sequence number "
                            + seq
                            + " is visible twice ("
                            + r.partition()
                            + "/"
                            + r.offset()
                            + ")";
            return;
        }
        seen.set((int) seq);
        visible++;
        if (seq < records) {
            backlogSeen++;
        } else {
            latency.record(Math.max(0, now - r.timestamp()), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * window-count output: value {"window_start":..,"window_end":..,"count":N}; each key and window
     * once.
     */
    private void countWindow(ConsumerRecord<byte[], byte[]> r) {
        String value = new String(r.value(), StandardCharsets.UTF_8);
        String window =
                new String(r.key(), StandardCharsets.UTF_8)
                        + " "
                        + value.substring(0, value.indexOf(",\"count\""));
        if (!windows.add(window)) {
            failure = output + ": window " + window + " is visible twice";
            return;
        }
        visible +=
                Long.parseLong(
                        value.substring(value.indexOf("\"count\":") + 8, value.lastIndexOf('}')));
    }

    long firstVisibleNanos() {
        return firstVisibleNanos;
    }

    /** When the backlog had become visible, or 0. */
    long backlogDoneNanos() {
        return backlogDoneNanos;
    }

    /**
     * Backlog and latency phase visible (known only after the batch that completed them is
     * counted).
     */
    boolean complete() {
        return backlogDoneNanos != 0 && visible >= expected;
    }

    String progress() {
        return String.format("%,d of %,d visible", visible, expected);
    }

    /** Why the output is wrong, or null. */
    String failure() {
        if (failure == null && windowCounts && visible > expected) {
            return output
                    + ": window counts add up to "
                    + visible
                    + ", more than the "
                    + expected
                    + " records";
        }
        return failure;
    }

    /** CPU seconds the observer's own thread had used when the backlog was through. */
    double cpuSeconds() {
        return cpuSeconds;
    }

    /** [p50, p99, max] in ms of the latency phase, or null without one. */
    double[] latencyMillis() {
        HistogramSnapshot snapshot = latency.takeSnapshot();
        if (snapshot.count() == 0) {
            return null;
        }
        double[] result = new double[3];
        for (ValueAtPercentile v : snapshot.percentileValues()) {
            result[v.percentile() < 0.9 ? 0 : 1] = v.value(TimeUnit.MILLISECONDS);
        }
        result[2] = snapshot.max(TimeUnit.MILLISECONDS);
        return result;
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join();
    }
}
