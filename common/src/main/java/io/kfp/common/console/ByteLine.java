package io.kfp.common.console;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer - a StringBuilder for bytes: the formatter builds a record's line in one,
 * the console writer collects lines in one and writes it out as it is, so the printed bytes are
 * never a String and never encoded again.
 */
final class ByteLine {

    private byte[] bytes;
    private int length;

    ByteLine(int capacity) {
        bytes = new byte[capacity];
    }

    ByteLine append(byte b) {
        ensure(1);
        bytes[length++] = b;
        return this;
    }

    ByteLine append(byte[] from, int offset, int count) {
        ensure(count);
        System.arraycopy(from, offset, bytes, length, count);
        length += count;
        return this;
    }

    ByteLine append(byte[] from) {
        return append(from, 0, from.length);
    }

    /** Text of our own (labels, numbers): ASCII, so one byte per char. */
    ByteLine appendAscii(String ascii) {
        return append(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    int length() {
        return length;
    }

    byte[] array() {
        return bytes;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    void clear() {
        length = 0;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + more, bytes.length * 2));
        }
    }
}
