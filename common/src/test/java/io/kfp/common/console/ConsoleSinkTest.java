package io.kfp.common.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.testing.FullDisk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;

class ConsoleSinkTest {

    /** Processing time that moves only when the test says so. */
    static final class ManualTime implements ProcessingTimeService {
        long now = 1_000;
        final List<long[]> due = new ArrayList<>();
        final List<ProcessingTimeCallback> callbacks = new ArrayList<>();

        @Override
        public long getCurrentProcessingTime() {
            return now;
        }

        @Override
        public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
            due.add(new long[] {timestamp});
            callbacks.add(callback);
            return null;
        }

        void advanceTo(long time) throws Exception {
            now = time;
            for (int i = 0; i < callbacks.size(); i++) {
                if (due.get(i)[0] <= time && due.get(i)[0] >= 0) {
                    due.get(i)[0] = -1;
                    callbacks.get(i).onProcessingTime(time);
                }
            }
        }
    }

    @Test
    void linesWaitInTheBufferUntilTheFlushIntervalOrACheckpoint() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ManualTime time = new ManualTime();
        SimpleCounter lines = new SimpleCounter();
        ConsoleSink.Writer writer = new ConsoleSink.Writer(out, time, 200, lines);

        writer.write(utf8("one"), null);
        writer.write(utf8("two"), null);
        assertThat(out.size()).as("buffered, not one write per record").isZero();

        time.advanceTo(1_199);
        assertThat(out.size()).isZero();
        time.advanceTo(1_200);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("one\ntwo\n");

        writer.write(utf8("three"), null);
        time.advanceTo(1_400); // the timer re-arms itself
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("one\ntwo\nthree\n");

        writer.write(utf8("four"), null);
        writer.flush(false); // checkpoint
        assertThat(out.toString(StandardCharsets.UTF_8)).endsWith("three\nfour\n");

        writer.write(utf8("five"), null);
        writer.close();
        assertThat(out.toString(StandardCharsets.UTF_8)).endsWith("four\nfive\n");
        assertThat(lines.getCount()).isEqualTo(5);
    }

    @Test
    void aFullBufferIsPrintedWithoutWaiting() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ConsoleSink.Writer writer =
                new ConsoleSink.Writer(out, new ManualTime(), 200, new SimpleCounter());
        String line = "x".repeat(1023);
        for (int i = 0; i < 64; i++) {
            writer.write(utf8(line), null);
        }
        assertThat(out.size()).isEqualTo(64 * 1024);
        writer.close();
    }

    @Test
    void parallelWritersNeverInterleaveMidLine() throws Exception {
        ByteArrayOutputStream shared = new ByteArrayOutputStream();
        int writers = 4;
        int perWriter = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int id = w;
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    // Each writer has its own stream object over the same bytes, as
                                    // subtasks do
                                    // with System.out: only the sink's lock keeps chunks whole.
                                    OutputStream unsynchronized =
                                            new OutputStream() {
                                                @Override
                                                public void write(int b) {
                                                    shared.write(b);
                                                }

                                                @Override
                                                public void write(byte[] b, int off, int len) {
                                                    for (int i = off; i < off + len; i++) {
                                                        shared.write(b[i]);
                                                    }
                                                }
                                            };
                                    ConsoleSink.Writer writer =
                                            new ConsoleSink.Writer(
                                                    unsynchronized,
                                                    new ManualTime(),
                                                    200,
                                                    new SimpleCounter());
                                    start.await();
                                    for (int i = 0; i < perWriter; i++) {
                                        writer.write(
                                                utf8(
                                                        "writer-"
                                                                + id
                                                                + "-line-"
                                                                + i
                                                                + "-"
                                                                + "y".repeat(i % 50)),
                                                null);
                                        if (i % 1000 == 0) {
                                            writer.flush(false);
                                        }
                                    }
                                    writer.close();
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            threads.add(t);
            t.start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(1));
        }

        String[] printed = shared.toString(StandardCharsets.UTF_8).split("\n", -1);
        assertThat(printed[printed.length - 1]).isEmpty();
        assertThat(printed).hasSize(writers * perWriter + 1);
        for (int i = 0; i < printed.length - 1; i++) {
            assertThat(printed[i]).matches("writer-\\d-line-(\\d+)-y*");
            int n = Integer.parseInt(printed[i].replaceAll("writer-\\d-line-(\\d+)-y*", "$1"));
            assertThat(printed[i]).endsWith("-" + "y".repeat(n % 50));
        }
    }

    @Test
    void aStandardOutputThatFailsFailsTheWriterInsteadOfLosingLines() throws Exception {
        SimpleCounter lines = new SimpleCounter();
        ConsoleSink.Writer writer =
                new ConsoleSink.Writer(
                        new PrintStream(FullDisk.stream(), false, StandardCharsets.UTF_8),
                        new ManualTime(),
                        200,
                        lines);
        writer.write(utf8("one"), null);

        assertThatThrownBy(() -> writer.flush(false))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("writing to the standard output failed")
                .hasMessageContaining("prints from its last checkpoint");
    }

    /**
     * The disk filled, a writer failed, the disk was freed: System.out still says it failed, and
     * forever will. The restarted writer prints through a stream of its own and succeeds.
     */
    @Test
    void aWriterAfterAnEarlierFailurePrintsOnceTheOutputWorksAgain() throws Exception {
        boolean[] full = {true};
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        OutputStream disk =
                new OutputStream() {
                    @Override
                    public void write(int b) throws IOException {
                        if (full[0]) {
                            throw new IOException("No space left on device");
                        }
                        file.write(b);
                    }
                };
        PrintStream systemOut = new PrintStream(disk, false, StandardCharsets.UTF_8);
        ConsoleSink.Target stdout = () -> ConsoleSink.stdout(systemOut, () -> disk);

        ConsoleSink.Writer failed =
                new ConsoleSink.Writer(stdout.open(), new ManualTime(), 200, new SimpleCounter());
        failed.write(utf8("lost"), null);
        assertThatThrownBy(() -> failed.flush(false)).isInstanceOf(IOException.class);

        full[0] = false;
        assertThat(systemOut.checkError()).as("PrintStream's flag, never cleared").isTrue();
        ConsoleSink.Writer restarted =
                new ConsoleSink.Writer(stdout.open(), new ManualTime(), 200, new SimpleCounter());
        restarted.write(utf8("again"), null);
        restarted.flush(false);
        assertThat(file.toString(StandardCharsets.UTF_8)).isEqualTo("again\n");
        restarted.close();
    }

    @Test
    void anOutputStreamThatFailsFailsTheWriterWithItsOwnError() throws Exception {
        ConsoleSink.Writer writer =
                new ConsoleSink.Writer(
                        FullDisk.stream(), new ManualTime(), 200, new SimpleCounter());
        writer.write(utf8("one"), null);

        assertThatThrownBy(() -> writer.flush(false))
                .isInstanceOf(IOException.class)
                .hasMessage("No space left on device");
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
