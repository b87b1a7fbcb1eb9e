package io.kfp.common.console;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Serializable;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;

/**
 * Prints each element as one line on the standard output of the process running the task (a
 * TaskManager on a cluster). Lines are buffered and written in whole-line chunks under one JVM-wide
 * lock, so output of parallel subtasks never interleaves mid-line; the buffer is flushed every
 * {@code flushInterval}, at every checkpoint, at 64 KiB and at the end.
 */
public final class ConsoleSink implements Sink<byte[]> {

    private static final long serialVersionUID = 1L;

    public static final String LINES_METRIC = "linesPrinted";

    /** Where the lines go; opened once per writer, on the TaskManager. */
    @FunctionalInterface
    public interface Target extends Serializable {
        OutputStream open() throws IOException;
    }

    private final Target target;
    private final long flushIntervalMs;

    public ConsoleSink(Target target, Duration flushInterval) {
        this.target = target;
        this.flushIntervalMs = flushInterval.toMillis();
    }

    /** Prints to the process's standard output. */
    public static ConsoleSink toStdout(Duration flushInterval) {
        return new ConsoleSink(
                () -> stdout(System.out, () -> new FileOutputStream(FileDescriptor.out)),
                flushInterval);
    }

    /**
     * The process's standard output as a writer should use it. {@code System.out} is a {@link
     * PrintStream}: it swallows a failed write and only sets a flag that nothing can clear. A
     * writer that finds the flag already set (an earlier writer's failure: a disk that filled and
     * was freed) would fail at its first check though its own lines are written fine, and so would
     * every restart after it on this TaskManager. It writes to the standard output's file
     * descriptor through a stream of its own instead, whose failures are its own.
     */
    static OutputStream stdout(PrintStream current, Target fresh) throws IOException {
        return current.checkError() ? new PrintStream(fresh.open(), false) : current;
    }

    @Override
    public SinkWriter<byte[]> createWriter(WriterInitContext context) throws IOException {
        return new Writer(
                target.open(),
                context.getProcessingTimeService(),
                flushIntervalMs,
                context.metricGroup().counter(LINES_METRIC));
    }

    /** One per subtask; every method runs on the task's mailbox thread, timers included. */
    static final class Writer implements SinkWriter<byte[]> {

        /** Whole chunks of lines, one writer at a time, whatever stream each writer holds. */
        private static final Object PRINT_LOCK = new Object();

        static final int MAX_BUFFERED_BYTES = 64 * 1024;

        private final OutputStream out;
        private final ProcessingTimeService time;
        private final long flushIntervalMs;
        private final Counter lines;

        /** Whole lines, as the bytes they are printed as. */
        private final ByteLine buffer = new ByteLine(MAX_BUFFERED_BYTES + 1024);

        private ScheduledFuture<?> nextFlush;
        private boolean closed;

        Writer(OutputStream out, ProcessingTimeService time, long flushIntervalMs, Counter lines) {
            this.out = out;
            this.time = time;
            this.flushIntervalMs = flushIntervalMs;
            this.lines = lines;
            scheduleFlush();
        }

        @Override
        public void write(byte[] line, Context context) throws IOException {
            buffer.append(line).append((byte) '\n');
            lines.inc();
            if (buffer.length() >= MAX_BUFFERED_BYTES) {
                print();
            }
        }

        /** Called before every checkpoint barrier and at the end of input. */
        @Override
        public void flush(boolean endOfInput) throws IOException {
            print();
        }

        private void scheduleFlush() {
            nextFlush =
                    time.registerTimer(
                            time.getCurrentProcessingTime() + flushIntervalMs,
                            timestamp -> {
                                print();
                                if (!closed) {
                                    scheduleFlush();
                                }
                            });
        }

        private void print() throws IOException {
            if (buffer.length() == 0) {
                return;
            }
            synchronized (PRINT_LOCK) {
                out.write(buffer.array(), 0, buffer.length());
                buffer.clear();
                out.flush();
                // System.out is a PrintStream: it swallows IOExceptions and only remembers them.
                // Going on would advance offsets past lines nobody ever saw.
                if (out instanceof PrintStream print && print.checkError()) {
                    throw new IOException(
                            "writing to the standard output failed (disk full, or the reader of the"
                                    + " pipe went away?): the lines since the last checkpoint were"
                                    + " not all printed. The job fails instead of skipping them;"
                                    + " once the output works again it prints from its last"
                                    + " checkpoint on.");
                }
            }
        }

        @Override
        public void close() throws IOException {
            closed = true;
            if (nextFlush != null) {
                nextFlush.cancel(false);
            }
            print();
        }
    }
}
