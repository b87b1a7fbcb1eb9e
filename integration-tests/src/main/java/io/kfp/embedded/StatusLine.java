package io.kfp.embedded;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A status line that stays at the bottom of a terminal while other output scrolls above it: what is
 * written through this stream (the sink's records, our own messages) first erases the status line,
 * and once a line of it is complete, the status line is drawn again below. Only for a terminal; in
 * a pipe the local pipeline uses none, so no control codes reach a file.
 */
final class StatusLine extends OutputStream {

    /** Carriage return, then erase to the end of the line (ANSI). */
    private static final byte[] ERASE = "\r\033[K".getBytes(StandardCharsets.US_ASCII);

    /** Erase the (empty) line the cursor is on, go up one, erase that one too. */
    private static final byte[] UP_AND_ERASE =
            "\r\033[K\033[1A\r\033[K".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream terminal;
    private final int columns;
    private final AtomicLong lines = new AtomicLong();
    private boolean closed;
    private String status = "";
    private boolean drawn;
    private boolean midLine;

    /**
     * @param columns how wide the terminal is: a longer status line would wrap, and erasing only
     *     its last row would leave the rest behind, so it is cut to fit
     */
    StatusLine(OutputStream terminal, int columns) {
        this.terminal = terminal;
        this.columns = columns;
    }

    /**
     * Complete lines written through this stream so far (the records the sink printed, and ours).
     */
    long lines() {
        return lines.get();
    }

    /** Replaces the status line. */
    synchronized void show(String line) throws IOException {
        if (closed) {
            return;
        }
        String first = line.lines().findFirst().orElse("");
        status =
                first.length() < columns
                        ? first
                        : first.substring(0, Math.max(0, columns - 2)) + "~";
        if (!midLine) {
            draw();
            terminal.flush();
        }
    }

    /**
     * The terminal echoed a line typed into it: the echo went onto the status line, and Enter moved
     * the cursor below. Erase that line (the sink prints what was typed once it is committed) and
     * draw the status line there again. A typed line longer than the terminal is wide leaves its
     * first rows behind.
     */
    synchronized void lineTyped() throws IOException {
        if (drawn && !midLine) {
            terminal.write(UP_AND_ERASE);
            drawn = false;
            draw();
            terminal.flush();
        }
    }

    /**
     * {@code in} (the terminal's stdin) with {@link #lineTyped()} called after each line read from
     * it.
     */
    InputStream watching(InputStream in) {
        StatusLine line = this;
        return new FilterInputStream(in) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                for (int i = off; i < off + n; i++) {
                    if (b[i] == '\n') {
                        line.lineTyped();
                        break;
                    }
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b == '\n') {
                    line.lineTyped();
                }
                return b;
            }
        };
    }

    /** Erases it for good, before the last words on exit. */
    synchronized void clear() throws IOException {
        erase();
        closed = true;
        status = "";
        terminal.flush();
    }

    /**
     * A stream to {@code other} (stderr) that keeps clear of the status line too: the line is
     * erased before it writes and drawn again after each complete line; not counted in {@link
     * #lines()}.
     */
    OutputStream beside(OutputStream other) {
        StatusLine line = this;
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                synchronized (line) {
                    if (len == 0) {
                        return;
                    }
                    erase();
                    terminal.flush();
                    other.write(b, off, len);
                    other.flush();
                    if (b[off + len - 1] == '\n' && !midLine) {
                        draw();
                        terminal.flush();
                    }
                }
            }

            @Override
            public void flush() throws IOException {
                other.flush();
            }
        };
    }

    @Override
    public synchronized void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return;
        }
        erase();
        terminal.write(b, off, len);
        for (int i = off; i < off + len; i++) {
            if (b[i] == '\n') {
                lines.incrementAndGet();
            }
        }
        midLine = b[off + len - 1] != '\n';
        if (!midLine) {
            draw();
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        terminal.flush();
    }

    private void erase() throws IOException {
        if (drawn) {
            terminal.write(ERASE);
            drawn = false;
        }
    }

    private void draw() throws IOException {
        erase();
        if (!status.isEmpty()) {
            terminal.write(status.getBytes(StandardCharsets.UTF_8));
            drawn = true;
        }
    }
}
