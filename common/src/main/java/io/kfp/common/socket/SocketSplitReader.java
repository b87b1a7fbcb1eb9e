package io.kfp.common.socket;

import io.kfp.common.log.RateLimitedWarning;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import jdk.net.ExtendedSocketOptions;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.util.TimeUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one endpoint on its own fetcher thread: connects (with timeout, retries and exponential
 * backoff), reads up to 64 KiB at a time and cuts it into lines.
 *
 * <p>Backpressure: the fetcher thread hands each batch to a small bounded queue and blocks when it
 * is full, so it stops reading; the kernel's socket buffer fills and TCP flow control stops the
 * sender. Memory per endpoint is bounded by the read buffer, the queue and one line.
 */
final class SocketSplitReader implements SplitReader<byte[], SocketSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(SocketSplitReader.class);

    /** Reads block at most this long, so the fetcher can react to wake-ups and shutdown. */
    static final int READ_POLL_MS = 200;

    private static final int READ_BUFFER = 64 * 1024;

    private final SocketSourceSettings settings;
    private final Function<Endpoint, EndpointMetrics> metricsFactory;
    private final byte[] buffer = new byte[READ_BUFFER];
    private final Object wakeLock = new Object();
    private final LineBytes lineBytes;
    private final boolean utf8;

    private SocketSplit split;
    private EndpointMetrics metrics;
    private LineSplitter splitter;

    /**
     * The first bytes of the current connection, held until it is clear whether they are a byte
     * order mark.
     */
    private final byte[] head = new byte[3];

    /** How many bytes {@link #head} holds; -1 once the connection's start is decided. */
    private int headLength = -1;

    private Socket socket;
    private InputStream in;
    private boolean everConnected;

    /** When the peer last sent a byte (or the connection was made). */
    private long lastDataNanos;

    private int failedAttempts;
    private long nextAttemptNanos;
    private boolean wokenUp;
    private volatile boolean closed;
    private final RateLimitedWarning oversizedWarning = new RateLimitedWarning(LOG);
    private final RateLimitedWarning malformedWarning = new RateLimitedWarning(LOG);
    private final RateLimitedWarning connectWarning = new RateLimitedWarning(LOG);
    private final RateLimitedWarning encodingWarning = new RateLimitedWarning(LOG);

    SocketSplitReader(
            SocketSourceSettings settings, Function<Endpoint, EndpointMetrics> metricsFactory) {
        this.settings = settings;
        this.metricsFactory = metricsFactory;
        Charset charset = Charset.forName(settings.charset());
        this.lineBytes = new LineBytes(charset, settings.malformed());
        this.utf8 = charset.equals(StandardCharsets.UTF_8);
    }

    @Override
    public RecordsWithSplitIds<byte[]> fetch() throws IOException {
        RecordsBySplits.Builder<byte[]> batch = new RecordsBySplits.Builder<>();
        if (split == null || closed) {
            return batch.build();
        }
        if (socket == null && !connect()) {
            return batch.build();
        }
        List<byte[]> lines = new ArrayList<>();
        LineSplitter.Lines sink = new BatchLines(lines);
        int n;
        try {
            n = in.read(buffer);
        } catch (SocketTimeoutException nothingYet) {
            Duration idle = settings.idleTimeout();
            if (!idle.isZero() && System.nanoTime() - lastDataNanos > idle.toNanos()) {
                String why =
                        "nothing from "
                                + split.endpoint()
                                + " for "
                                + TimeUtils.formatWithHighestUnit(idle)
                                + " (socket.idle-timeout)";
                long dropped = dropUnfinishedLine();
                closeSocket();
                if (settings.bounded()) {
                    throw new IOException(
                            why
                                    + " before the peer finished sending (socket.bounded=true)"
                                    + (dropped > 0
                                            ? "; dropped an unfinished line of "
                                                    + dropped
                                                    + " bytes"
                                            : ""));
                }
                LOG.warn(
                        "{}: reconnecting{}.",
                        why,
                        dropped > 0
                                ? " (dropped an unfinished line of " + dropped + " bytes)"
                                : "");
                scheduleReconnect();
            }
            return batch.build();
        } catch (IOException e) {
            if (closed) {
                return batch.build();
            }
            long dropped = dropUnfinishedLine();
            closeSocket();
            if (settings.bounded()) {
                // A one-shot load that breaks off is incomplete: fail rather than end
                // "successfully".
                throw new IOException(
                        "The connection to "
                                + split.endpoint()
                                + " broke before the peer"
                                + " finished sending (socket.bounded=true): "
                                + e
                                + (dropped > 0
                                        ? "; dropped an unfinished line of " + dropped + " bytes"
                                        : ""),
                        e);
            }
            LOG.warn(
                    "Lost the connection to {}: {}{}; reconnecting.",
                    split.endpoint(),
                    e.toString(),
                    dropped > 0 ? " (dropped an unfinished line of " + dropped + " bytes)" : "");
            scheduleReconnect();
            batch.addAll(split, lines);
            return batch.build();
        }
        if (n < 0) {
            if (headLength > 0) {
                splitter.feed(head, 0, headLength, sink); // one or two bytes that began no mark
            }
            headLength = -1;
            if (settings.bounded()) {
                // A file's last line needs no delimiter.
                splitter.finish(sink);
            } else {
                // The peer may well send again after a reconnect: a fragment is not a line.
                long dropped = dropUnfinishedLine();
                if (dropped > 0) {
                    LOG.warn(
                            "{} closed the connection in the middle of a line: dropped its {} bytes.",
                            split.endpoint(),
                            dropped);
                }
            }
            closeSocket();
            if (settings.bounded()) {
                LOG.info("{} closed the connection; this bounded split is done.", split.endpoint());
                batch.addAll(split, lines);
                batch.addFinishedSplit(split.splitId());
                split = null;
                return batch.build();
            }
            connectWarning.warn("{} closed the connection; reconnecting.", split.endpoint());
            scheduleReconnect();
        } else {
            metrics.bytes.inc(n);
            lastDataNanos = System.nanoTime();
            int from = headLength < 0 ? 0 : connectionStart(n, sink);
            if (from < 0) {
                batch.addAll(split, lines);
                return batch.build();
            }
            // Retries count again only once data flowed: a peer that accepts and hangs up at
            // once must not be reconnected to in a tight loop for ever.
            failedAttempts = 0;
            splitter.feed(buffer, from, n - from, sink);
        }
        batch.addAll(split, lines);
        return batch.build();
    }

    /**
     * The first bytes of a connection: held until they are known not to be a byte order mark, then
     * fed; a UTF-8 mark dropped (with the UTF-8 charset); UTF-16 or UTF-32 refused. Returns where
     * in {@link #buffer} the line bytes go on, or -1 when nothing more of it is to be fed now.
     */
    private int connectionStart(int n, LineSplitter.Lines sink) throws IOException {
        int take = Math.min(n, head.length - headLength);
        System.arraycopy(buffer, 0, head, headLength, take);
        headLength += take;
        ByteOrderMark mark = ByteOrderMark.of(head, headLength);
        switch (mark) {
            case UNDECIDED -> {
                return -1; // every byte read is in head (fewer than three so far)
            }
            case UTF_16_OR_32 -> {
                refuse(mark);
                return -1;
            }
            case UTF_8 -> {
                if (!utf8) {
                    splitter.feed(head, 0, headLength, sink); // text in another charset
                }
            }
            case NONE -> splitter.feed(head, 0, headLength, sink);
            default -> throw new IllegalStateException(mark.name());
        }
        headLength = -1;
        return take;
    }

    /**
     * Closes a connection whose peer sends UTF-16 or UTF-32: as ASCII-compatible lines its input
     * would be garbled.
     */
    private void refuse(ByteOrderMark mark) throws IOException {
        String why =
                split.endpoint()
                        + " sends UTF-16 or UTF-32 (the connection began with the byte order mark "
                        + mark.hex(head)
                        + "), but the socket source cuts lines in "
                        + settings.charset()
                        + " (socket.charset, which must be ASCII-compatible): every character would arrive with NUL bytes."
                        + " Have the sender write UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 FILE, or PowerShell's -Encoding utf8)";
        headLength = -1;
        splitter.discard();
        closeSocket();
        metrics.refusedConnections.inc();
        failedAttempts++;
        int maxRetries = settings.maxRetries();
        if (settings.bounded() || maxRetries >= 0 && failedAttempts > maxRetries) {
            throw new IOException(
                    why
                            + (settings.bounded()
                                    ? "."
                                    : "; refused "
                                            + failedAttempts
                                            + (failedAttempts == 1 ? " connection" : " connections")
                                            + " (socket.max-retries="
                                            + maxRetries
                                            + ")."));
        }
        long delayMs = backoffMs(failedAttempts);
        nextAttemptNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        encodingWarning.warn("{}; closed the connection, trying again in {} ms.", why, delayMs);
    }

    /** Connects if it is time to; false while waiting for the next attempt. */
    private boolean connect() throws IOException {
        long waitNanos = nextAttemptNanos - System.nanoTime();
        if (waitNanos > 0) {
            sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(waitNanos) + 1, READ_POLL_MS));
            return false;
        }
        Endpoint endpoint = split.endpoint();
        Socket candidate = new Socket();
        try {
            candidate.connect(
                    new InetSocketAddress(endpoint.host(), endpoint.port()),
                    (int) settings.connectTimeout().toMillis());
            candidate.setSoTimeout(READ_POLL_MS);
            keepAlive(candidate);
        } catch (IOException e) {
            closeQuietly(candidate, e);
            failedAttempts++;
            int maxRetries = settings.maxRetries();
            if (maxRetries >= 0 && failedAttempts > maxRetries) {
                throw new IOException(
                        "Could not connect to "
                                + endpoint
                                + ": "
                                + failedAttempts
                                + (failedAttempts == 1 ? " attempt" : " attempts")
                                + " failed (socket.max-retries="
                                + maxRetries
                                + "); last error: "
                                + e
                                + ". Check that a server listens on "
                                + endpoint
                                + " and can be reached from the TaskManager, or raise"
                                + " socket.max-retries (-1 retries forever).",
                        e);
            }
            long delayMs = backoffMs(failedAttempts);
            nextAttemptNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
            connectWarning.warn(
                    "Cannot connect to {} (attempt {}): {}; retrying in {} ms.",
                    endpoint,
                    failedAttempts,
                    e.toString(),
                    delayMs);
            return false;
        }
        socket = candidate;
        in = candidate.getInputStream();
        splitter =
                new LineSplitter(
                        settings.delimiter(),
                        settings.maxLineLength(),
                        settings.stripCarriageReturn());
        headLength = 0;
        if (everConnected) {
            metrics.reconnects.inc();
        }
        everConnected = true;
        lastDataNanos = System.nanoTime();
        LOG.info("Connected to {}.", endpoint);
        return true;
    }

    /**
     * TCP keepalive: a peer whose host died or was cut off never closes the connection, and without
     * probes a reader waits for it for ever. 30 s idle, then 3 probes 10 s apart: a dead peer is
     * noticed within about a minute (the OS default is over two hours).
     */
    static void keepAlive(Socket socket) throws IOException {
        socket.setKeepAlive(true);
        if (socket.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
            socket.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS);
            socket.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEPALIVE_INTERVAL_SECONDS);
            socket.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_PROBES);
        }
    }

    static final int KEEPALIVE_IDLE_SECONDS = 30;
    static final int KEEPALIVE_INTERVAL_SECONDS = 10;
    static final int KEEPALIVE_PROBES = 3;

    /** Drops the line the connection ended in the middle of, and counts it; returns its bytes. */
    private long dropUnfinishedLine() {
        long dropped =
                splitter.discard()
                        + Math.max(
                                0, headLength); // with the one or two bytes that might have begun a
        // mark
        headLength = -1;
        if (dropped > 0) {
            metrics.unfinishedLinesDropped.inc();
        }
        return dropped;
    }

    /** After a lost connection: the next attempt after the backoff for the attempts so far. */
    private void scheduleReconnect() {
        failedAttempts++;
        nextAttemptNanos =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs(failedAttempts));
    }

    /** initial * 2^(attempt-1), at most the maximum. */
    long backoffMs(int attempt) {
        long initial = settings.initialBackoff().toMillis();
        long max = settings.maxBackoff().toMillis();
        long delay = initial;
        for (int i = 1; i < attempt && delay < max; i++) {
            delay *= 2;
        }
        return Math.min(delay, max);
    }

    private void sleep(long millis) {
        synchronized (wakeLock) {
            if (!wokenUp) {
                try {
                    wakeLock.wait(Math.max(1, millis));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            wokenUp = false;
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<SocketSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("socket splits are never removed: " + change);
        }
        for (SocketSplit added : change.splits()) {
            if (split != null) {
                throw new IllegalStateException(
                        "one socket split per fetcher, got " + added + " besides " + split);
            }
            split = added;
            metrics = metricsFactory.apply(added.endpoint());
            nextAttemptNanos = System.nanoTime();
        }
    }

    @Override
    public void wakeUp() {
        synchronized (wakeLock) {
            wokenUp = true;
            wakeLock.notifyAll();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        wakeUp();
        closeSocket();
    }

    private void closeSocket() throws IOException {
        Socket current = socket;
        socket = null;
        in = null;
        if (current != null) {
            current.close();
        }
    }

    private static void closeQuietly(Socket socket, IOException cause) {
        try {
            socket.close();
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    /** Filters, checks and counts complete lines into the current batch. */
    private final class BatchLines implements LineSplitter.Lines {
        private final List<byte[]> lines;

        BatchLines(List<byte[]> lines) {
            this.lines = lines;
        }

        @Override
        public void line(byte[] bytes, int offset, int length) {
            if (length == 0 && settings.dropEmptyLines()) {
                metrics.emptyLinesDropped.inc();
                return;
            }
            LineBytes.Line line = lineBytes.line(bytes, offset, length);
            if (line.malformed()) {
                metrics.malformedLines.inc();
                malformedWarning.warn(
                        "A line from {} is not valid {} ({} bytes); {}.",
                        split.endpoint(),
                        settings.charset(),
                        length,
                        switch (settings.malformed()) {
                            case KEEP -> "kept its bytes as they are (socket.malformed=keep)";
                            case REPLACE ->
                                    "replaced the bad bytes with U+FFFD (socket.malformed=replace)";
                            case REJECT -> "dropped it (socket.malformed=reject)";
                        });
                if (line.bytes() == null) {
                    return;
                }
            }
            metrics.lines.inc();
            lines.add(line.bytes());
        }

        @Override
        public void oversized(long length) throws IOException {
            metrics.oversizedLinesSkipped.inc();
            if (settings.oversized() == SocketSourceSettings.OversizedPolicy.FAIL) {
                throw new IOException(
                        "A line of "
                                + length
                                + " bytes from "
                                + split.endpoint()
                                + " is longer than socket.max-line-length ("
                                + settings.maxLineLength()
                                + " bytes). Raise socket.max-line-length, or set socket.oversized-lines=skip"
                                + " to skip such lines.");
            }
            oversizedWarning.warn(
                    "Skipped a line of {} bytes from {}: longer than socket.max-line-length ({} bytes).",
                    length,
                    split.endpoint(),
                    settings.maxLineLength());
        }
    }
}
