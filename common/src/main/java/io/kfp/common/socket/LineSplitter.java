package io.kfp.common.socket;

import java.io.IOException;
import java.util.Arrays;

/**
 * Cuts a byte stream into lines with bounded memory: at most {@code maxLineLength} bytes of an
 * unfinished line are kept. A longer line is not buffered: its bytes are dropped up to the next
 * delimiter and only its size is reported.
 *
 * <p>Complete lines that lie inside one chunk are handed out without copying. A trailing {@code \r}
 * is stripped when the delimiter is {@code \n}. Not thread-safe: one per connection.
 */
final class LineSplitter {

    /** Receives the splitter's output. */
    interface Lines {
        /** A complete line, without its delimiter; the bytes are only valid during the call. */
        void line(byte[] bytes, int offset, int length) throws IOException;

        /** A line of {@code length} bytes was longer than the maximum and was dropped. */
        void oversized(long length) throws IOException;
    }

    private static final int INITIAL_BUFFER = 1024;

    private final byte[] delimiter;
    private final int[] failure;
    private final int maxLineLength;
    private final boolean stripCarriageReturn;

    /** Bytes of the current line not yet handed out (never more than maxLineLength + delimiter). */
    private byte[] pending = new byte[INITIAL_BUFFER];

    private int pendingLength;

    /** Dropping an oversized line: how many bytes it had so far. -1 when not dropping. */
    private long skipped = -1;

    /** Multi-byte delimiters: how many delimiter bytes the input currently ends with. */
    private int matched;

    LineSplitter(byte[] delimiter, int maxLineLength, boolean stripCarriageReturn) {
        if (delimiter.length == 0) {
            throw new IllegalArgumentException("empty delimiter");
        }
        this.delimiter = delimiter.clone();
        this.failure = failureTable(delimiter);
        this.maxLineLength = maxLineLength;
        this.stripCarriageReturn = stripCarriageReturn;
    }

    /** Bytes currently held for an unfinished line (for tests of the memory bound). */
    int bufferCapacity() {
        return pending.length;
    }

    void feed(byte[] data, int offset, int length, Lines out) throws IOException {
        if (delimiter.length == 1) {
            feedSingleByteDelimiter(data, offset, length, out);
        } else {
            feedMultiByteDelimiter(data, offset, length, out);
        }
    }

    /** End of stream: a last line without delimiter is still a line (if not too long). */
    void finish(Lines out) throws IOException {
        if (skipped >= 0) {
            out.oversized(skipped);
        } else if (pendingLength > 0) {
            if (effectiveLength(pending, 0, pendingLength) > maxLineLength) {
                out.oversized(pendingLength);
            } else {
                emit(pending, 0, pendingLength, out);
            }
        }
        reset();
    }

    /**
     * The connection broke: an unfinished line is not a line. Returns how many bytes were dropped.
     */
    long discard() {
        long dropped = skipped >= 0 ? skipped : pendingLength;
        reset();
        return dropped;
    }

    private void feedSingleByteDelimiter(byte[] data, int offset, int length, Lines out)
            throws IOException {
        byte d = delimiter[0];
        int end = offset + length;
        int start = offset;
        for (int i = offset; i < end; i++) {
            if (data[i] != d) {
                continue;
            }
            int lineLength = i - start;
            if (skipped >= 0) {
                out.oversized(skipped + lineLength);
                skipped = -1;
            } else if (pendingLength == 0) {
                if (effectiveLength(data, start, lineLength) > maxLineLength) {
                    out.oversized(lineLength);
                } else {
                    emit(data, start, lineLength, out);
                }
            } else if (effectiveLength(pending, data, start, lineLength) > maxLineLength) {
                out.oversized((long) pendingLength + lineLength);
                pendingLength = 0;
            } else {
                append(data, start, lineLength);
                emit(pending, 0, pendingLength, out);
                pendingLength = 0;
            }
            start = i + 1;
        }
        keepTail(data, start, end - start);
    }

    /** Keeps the bytes after the last delimiter, or starts dropping if they are too many. */
    private void keepTail(byte[] data, int start, int length) {
        if (length == 0) {
            return;
        }
        if (skipped >= 0) {
            skipped += length;
        } else if ((long) pendingLength + length > maxLineLength + 1L) {
            // One extra byte allowed: it may be the \r that will be stripped.
            skipped = (long) pendingLength + length;
            pendingLength = 0;
            shrink();
        } else {
            append(data, start, length);
        }
    }

    private void feedMultiByteDelimiter(byte[] data, int offset, int length, Lines out)
            throws IOException {
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            byte b = data[i];
            while (matched > 0 && b != delimiter[matched]) {
                matched = failure[matched - 1];
            }
            if (b == delimiter[matched]) {
                matched++;
            }
            if (skipped >= 0) {
                skipped++;
            } else if (pendingLength + 1 > maxLineLength + delimiter.length) {
                skipped = pendingLength + 1;
                pendingLength = 0;
                shrink();
            } else {
                append(data, i, 1);
            }
            if (matched == delimiter.length) {
                matched = 0;
                if (skipped >= 0) {
                    out.oversized(skipped - delimiter.length);
                    skipped = -1;
                } else {
                    int lineLength = pendingLength - delimiter.length;
                    if (lineLength > maxLineLength) {
                        out.oversized(lineLength);
                    } else {
                        emit(pending, 0, lineLength, out);
                    }
                    pendingLength = 0;
                }
            }
        }
    }

    private void emit(byte[] bytes, int offset, int length, Lines out) throws IOException {
        if (stripCarriageReturn && length > 0 && bytes[offset + length - 1] == '\r') {
            length--;
        }
        out.line(bytes, offset, length);
    }

    private int effectiveLength(byte[] bytes, int offset, int length) {
        return stripCarriageReturn && length > 0 && bytes[offset + length - 1] == '\r'
                ? length - 1
                : length;
    }

    private long effectiveLength(byte[] head, byte[] tail, int tailOffset, int tailLength) {
        byte last = tailLength > 0 ? tail[tailOffset + tailLength - 1] : head[pendingLength - 1];
        long total = (long) pendingLength + tailLength;
        return stripCarriageReturn && last == '\r' ? total - 1 : total;
    }

    private void append(byte[] data, int start, int length) {
        int needed = pendingLength + length;
        if (needed > pending.length) {
            pending =
                    Arrays.copyOf(
                            pending,
                            Math.max(
                                    needed,
                                    Math.min(
                                            pending.length * 2,
                                            maxLineLength + delimiter.length + 1)));
        }
        System.arraycopy(data, start, pending, pendingLength, length);
        pendingLength = needed;
    }

    /** After a long line, give the memory back. */
    private void shrink() {
        if (pending.length > INITIAL_BUFFER) {
            pending = new byte[INITIAL_BUFFER];
        }
    }

    private void reset() {
        pendingLength = 0;
        skipped = -1;
        matched = 0;
        shrink();
    }

    /** KMP failure function: longest proper prefix of the delimiter that is also a suffix. */
    private static int[] failureTable(byte[] pattern) {
        int[] table = new int[pattern.length];
        int k = 0;
        for (int i = 1; i < pattern.length; i++) {
            while (k > 0 && pattern[i] != pattern[k]) {
                k = table[k - 1];
            }
            if (pattern[i] == pattern[k]) {
                k++;
            }
            table[i] = k;
        }
        return table;
    }
}
