package io.kfp.common.socket;

import static io.kfp.common.socket.LineServer.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/** The reader and enumerator as Flink drives them: assignment, checkpoint, restore. */
class SocketSourceReaderTest {

    @Test
    void aRestoredSplitReconnectsAndReadsOn() throws Exception {
        try (LineServer server = new LineServer()) {
            // The first connection stays open until its reader is gone, so that reader cannot
            // reconnect and take the second connection's line.
            CountDownLatch firstReaderClosed = new CountDownLatch(1);
            CountDownLatch secondReaderClosed = new CountDownLatch(1);
            server.then(
                            out -> {
                                send("one\ntwo\n").run(out);
                                out.flush();
                                firstReaderClosed.await(30, TimeUnit.SECONDS);
                            })
                    .then(
                            out -> {
                                send("three\n").run(out);
                                out.flush();
                                secondReaderClosed.await(30, TimeUnit.SECONDS);
                            });
            SocketLineSource source =
                    new SocketLineSource(
                            SocketSplitReaderTest.settings(
                                    server.endpoint(),
                                    100,
                                    false,
                                    5,
                                    SocketSourceSettings.MalformedPolicy.REPLACE,
                                    false));

            List<SocketSplit> checkpoint;
            List<String> before = new ArrayList<>();
            try (SourceReader<byte[], SocketSplit> reader =
                    source.createReader(new ReaderContext())) {
                reader.start();
                reader.addSplits(List.of(new SocketSplit(0, Endpoint.parse(server.endpoint()))));
                poll(reader, before, 2);
                checkpoint = reader.snapshotState(1L);
            }
            firstReaderClosed.countDown();
            assertThat(before).containsExactly("one", "two");
            assertThat(checkpoint)
                    .containsExactly(new SocketSplit(0, Endpoint.parse(server.endpoint())));

            byte[] serialized = source.getSplitSerializer().serialize(checkpoint.get(0));
            SocketSplit restored =
                    source.getSplitSerializer()
                            .deserialize(source.getSplitSerializer().getVersion(), serialized);

            List<String> after = new ArrayList<>();
            try (SourceReader<byte[], SocketSplit> reader =
                    source.createReader(new ReaderContext())) {
                reader.start();
                reader.addSplits(List.of(restored));
                poll(reader, after, 1);
            }
            secondReaderClosed.countDown();
            assertThat(after).containsExactly("three");
            assertThat(server.accepted).isEqualTo(2);
        }
    }

    @Test
    void aReaderNobodyPollsStopsReadingSoTcpPushesBackOnTheSender() throws Exception {
        long total = 512L * 1024 * 1024; // far more than any socket buffer and queue hold
        AtomicLong written = new AtomicLong();
        CountDownLatch stop = new CountDownLatch(1);
        try (LineServer server = new LineServer()) {
            server.then(
                    out -> {
                        byte[] chunk =
                                ("x".repeat(99) + "\n")
                                        .repeat(640)
                                        .getBytes(StandardCharsets.UTF_8);
                        while (written.get() < total && stop.getCount() > 0) {
                            out.write(chunk); // blocks once the reader stops reading
                            written.addAndGet(chunk.length);
                        }
                    });
            SocketLineSource source =
                    new SocketLineSource(
                            SocketSplitReaderTest.settings(
                                    server.endpoint(),
                                    1024,
                                    false,
                                    0,
                                    SocketSourceSettings.MalformedPolicy.REPLACE,
                                    false));
            try (SourceReader<byte[], SocketSplit> reader =
                    source.createReader(new ReaderContext())) {
                reader.start();
                reader.addSplits(List.of(new SocketSplit(0, Endpoint.parse(server.endpoint()))));
                // Never polled: the fetcher fills its small queue and blocks, the kernel buffers
                // fill, and the server's write blocks. Wait until the sender is stuck.
                long previous = -1;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (written.get() != previous && System.nanoTime() < deadline) {
                    previous = written.get();
                    Thread.sleep(300);
                }
                assertThat(written.get())
                        .as("bytes the sender got rid of")
                        .isLessThan(64L * 1024 * 1024);
            } finally {
                stop.countDown();
            }
        }
    }

    @Test
    void enumeratorSpreadsEndpointsOverReadersAndKeepsUnassignedOnesInItsState() throws Exception {
        List<Endpoint> endpoints =
                List.of(Endpoint.parse("h:1"), Endpoint.parse("h:2"), Endpoint.parse("h:3"));
        SocketSourceSettings settings =
                new SocketSourceSettings(
                        endpoints,
                        new byte[] {'\n'},
                        "UTF-8",
                        SocketSourceSettings.MalformedPolicy.REPLACE,
                        10,
                        SocketSourceSettings.OversizedPolicy.SKIP,
                        false,
                        Duration.ofSeconds(1),
                        0,
                        Duration.ofMillis(1),
                        Duration.ofMillis(1),
                        Duration.ZERO,
                        true);
        EnumeratorContext context = new EnumeratorContext(2);
        context.registered.addAll(List.of(0, 1));
        var enumerator = new SocketLineSource(settings).createEnumerator(context);
        enumerator.start();
        enumerator.addReader(1);
        assertThat(context.assigned).containsOnlyKeys(1);
        assertThat(context.assigned.get(1)).extracting(SocketSplit::index).containsExactly(1);
        assertThat(context.noMoreSplits).containsExactly(1);

        Set<SocketSplit> state = enumerator.snapshotState(1L);
        assertThat(state).extracting(SocketSplit::index).containsExactly(0, 2);
        var serializer = new SocketLineSource(settings).getEnumeratorCheckpointSerializer();
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(state)))
                .isEqualTo(state);

        enumerator.addReader(0);
        assertThat(context.assigned.get(0)).extracting(SocketSplit::index).containsExactly(0, 2);

        // Reader 1 fails: its split comes back and waits for the reader to register again.
        context.registered.remove(1);
        enumerator.addSplitsBack(List.of(new SocketSplit(1, endpoints.get(1))), 1);
        assertThat(enumerator.snapshotState(2L)).extracting(SocketSplit::index).containsExactly(1);
        context.registered.add(1);
        enumerator.addReader(1);
        assertThat(context.assigned.get(1)).extracting(SocketSplit::index).containsExactly(1, 1);
        assertThat(enumerator.snapshotState(3L)).isEmpty();
    }

    private static void poll(SourceReader<byte[], SocketSplit> reader, List<String> out, int count)
            throws Exception {
        Output output = new Output(out);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (out.size() < count && System.nanoTime() < deadline) {
            reader.isAvailable().get(1, TimeUnit.SECONDS);
            reader.pollNext(output);
        }
    }

    /** Collects what the reader emits; every line carries an ingestion-time timestamp. */
    private record Output(List<String> lines) implements ReaderOutput<byte[]> {
        @Override
        public void collect(byte[] record) {
            throw new AssertionError("lines must carry a timestamp");
        }

        @Override
        public void collect(byte[] record, long timestamp) {
            assertThat(timestamp).isPositive();
            lines.add(new String(record, StandardCharsets.UTF_8));
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<byte[]> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }

    private static final class ReaderContext implements SourceReaderContext {
        @Override
        public SourceReaderMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {}

        @Override
        public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {}

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
        }
    }

    private static final class EnumeratorContext implements SplitEnumeratorContext<SocketSplit> {
        final int parallelism;
        final Map<Integer, List<SocketSplit>> assigned = new HashMap<>();
        final List<Integer> noMoreSplits = new ArrayList<>();
        final Set<Integer> registered = new HashSet<>();

        EnumeratorContext(int parallelism) {
            this.parallelism = parallelism;
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException("the socket enumerator has no metrics");
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {}

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            Map<Integer, ReaderInfo> readers = new HashMap<>();
            registered.forEach(r -> readers.put(r, new ReaderInfo(r, "localhost")));
            return readers;
        }

        @Override
        public void assignSplits(SplitsAssignment<SocketSplit> assignment) {
            assignment
                    .assignment()
                    .forEach(
                            (reader, splits) ->
                                    assigned.computeIfAbsent(reader, r -> new ArrayList<>())
                                            .addAll(splits));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            noMoreSplits.add(subtask);
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {}

        @Override
        public <T> void callAsync(
                Callable<T> callable,
                BiConsumer<T, Throwable> handler,
                long initialDelay,
                long period) {}

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            runnable.run();
        }
    }
}
