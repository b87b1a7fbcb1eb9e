package io.kfp.common.console;

import io.kfp.common.text.ByteWords;
import io.kfp.common.text.Utf8;
import java.nio.charset.StandardCharsets;

/**
 * Bytes as one printable line: valid UTF-8 is printed as text; each byte that is not part of valid
 * UTF-8 is printed as {@code \xNN}. Line breaks, tabs, other control characters and the backslash
 * itself are escaped too ({@code \n}, {@code \r}, {@code \t}, {@code \xNN}, {@code \\}), so a
 * record always stays on one line and the output is unambiguous.
 */
final class EscapedText {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private EscapedText() {}

    /**
     * Appends {@code bytes} as one printable line to {@code out}: valid UTF-8 copied as it is, the
     * rest escaped.
     */
    static void append(byte[] bytes, ByteLine out) {
        int i = 0;
        int n = bytes.length;
        while (i < n) {
            // Runs of printable ASCII (the common case) are copied at once, not byte by byte.
            int run = plainRun(bytes, i);
            if (run > i) {
                out.append(bytes, i, run - i);
                i = run;
                continue;
            }
            int b = bytes[i] & 0xff;
            if (b < 0x80) {
                appendAscii(b, out);
                i++;
                continue;
            }
            int length = Utf8.sequenceLength(bytes, i, n);
            if (length == 0) {
                appendHex(b, out);
                i++;
                continue;
            }
            if (Character.isISOControl(Utf8.decode(bytes, i, length))) {
                for (int k = 0; k < length; k++) {
                    appendHex(bytes[i + k] & 0xff, out);
                }
            } else {
                out.append(bytes, i, length); // valid UTF-8: its bytes are its text
            }
            i += length;
        }
    }

    /** True if every byte is printable ASCII other than '\\': the text is the bytes themselves. */
    static boolean isPlain(byte[] bytes) {
        return plainRun(bytes, 0) == bytes.length;
    }

    /** The end of the run of printable ASCII bytes other than '\\' starting at {@code from}. */
    private static int plainRun(byte[] bytes, int from) {
        int i = from;
        // Eight bytes at a time while all are plain (byte by byte, this check was a tenth of the
        // sink's CPU); the last, partial word and the word holding the run's end byte by byte.
        while (i + Long.BYTES <= bytes.length && isPlain(ByteWords.at(bytes, i))) {
            i += Long.BYTES;
        }
        while (i < bytes.length) {
            byte b = bytes[i];
            if (b < 0x20 || b == 0x7f || b == '\\') {
                break;
            }
            i++;
        }
        return i;
    }

    /** Whether all eight bytes of {@code word} are printable ASCII other than '\\'. */
    private static boolean isPlain(long word) {
        long notPlain =
                word & ByteWords.HIGH_BITS
                        | ByteWords.hasByteBelow(word, 0x20)
                        | ByteWords.hasZeroByte(word ^ 0x7f * ByteWords.ONES)
                        | ByteWords.hasZeroByte(word ^ '\\' * ByteWords.ONES);
        return notPlain == 0;
    }

    private static void appendAscii(int b, ByteLine out) {
        switch (b) {
            case '\n' -> out.append((byte) '\\').append((byte) 'n');
            case '\r' -> out.append((byte) '\\').append((byte) 'r');
            case '\t' -> out.append((byte) '\\').append((byte) 't');
            case '\\' -> out.append((byte) '\\').append((byte) '\\');
            default -> {
                if (b < 0x20 || b == 0x7f) {
                    appendHex(b, out);
                } else {
                    out.append((byte) b);
                }
            }
        }
    }

    private static void appendHex(int b, ByteLine out) {
        out.append((byte) '\\').append((byte) 'x').append(HEX[b >> 4]).append(HEX[b & 0xf]);
    }
}
