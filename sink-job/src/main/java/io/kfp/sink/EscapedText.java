package io.kfp.sink;

import java.nio.charset.StandardCharsets;

/**
 * Bytes as one printable line: valid UTF-8 is printed as text; each byte that is not part of
 * valid UTF-8 is printed as {@code \xNN}. Line breaks, tabs, other control characters and the
 * backslash itself are escaped too ({@code \n}, {@code \r}, {@code \t}, {@code \xNN}, {@code
 * \\}), so a record always stays on one line and the output is unambiguous.
 */
final class EscapedText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private EscapedText() {}

    static void append(byte[] bytes, StringBuilder out) {
        int i = 0;
        int n = bytes.length;
        while (i < n) {
            // Runs of printable ASCII (the common case) are copied at once, not char by char.
            int run = plainRun(bytes, i);
            if (run > i) {
                out.append(new String(bytes, i, run - i, StandardCharsets.ISO_8859_1));
                i = run;
                continue;
            }
            int b = bytes[i] & 0xff;
            if (b < 0x80) {
                appendAscii(b, out);
                i++;
                continue;
            }
            int length = sequenceLength(bytes, i);
            if (length == 0) {
                appendHex(b, out);
                i++;
                continue;
            }
            int codePoint = decode(bytes, i, length);
            if (Character.isISOControl(codePoint)) {
                for (int k = 0; k < length; k++) {
                    appendHex(bytes[i + k] & 0xff, out);
                }
            } else {
                out.appendCodePoint(codePoint);
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
        while (i < bytes.length) {
            byte b = bytes[i];
            if (b < 0x20 || b == 0x7f || b == '\\') {
                break;
            }
            i++;
        }
        return i;
    }

    private static void appendAscii(int b, StringBuilder out) {
        switch (b) {
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            case '\\' -> out.append("\\\\");
            default -> {
                if (b < 0x20 || b == 0x7f) {
                    appendHex(b, out);
                } else {
                    out.append((char) b);
                }
            }
        }
    }

    private static void appendHex(int b, StringBuilder out) {
        out.append("\\x").append(HEX[b >> 4]).append(HEX[b & 0xf]);
    }

    /**
     * Length of the well-formed UTF-8 sequence starting at {@code i} (2 to 4), or 0 if the bytes
     * there are not one (bad lead byte, missing or bad continuation, overlong form, surrogate,
     * above U+10FFFF), following the Unicode table of well-formed byte sequences.
     */
    private static int sequenceLength(byte[] bytes, int i) {
        int b0 = bytes[i] & 0xff;
        int n = bytes.length;
        if (b0 >= 0xc2 && b0 <= 0xdf) {
            return i + 1 < n && isContinuation(bytes[i + 1]) ? 2 : 0;
        }
        if (b0 >= 0xe0 && b0 <= 0xef) {
            if (i + 2 >= n) {
                return 0;
            }
            int b1 = bytes[i + 1] & 0xff;
            boolean secondOk =
                    b0 == 0xe0 ? b1 >= 0xa0 && b1 <= 0xbf
                    : b0 == 0xed ? b1 >= 0x80 && b1 <= 0x9f
                    : b1 >= 0x80 && b1 <= 0xbf;
            return secondOk && isContinuation(bytes[i + 2]) ? 3 : 0;
        }
        if (b0 >= 0xf0 && b0 <= 0xf4) {
            if (i + 3 >= n) {
                return 0;
            }
            int b1 = bytes[i + 1] & 0xff;
            boolean secondOk =
                    b0 == 0xf0 ? b1 >= 0x90 && b1 <= 0xbf
                    : b0 == 0xf4 ? b1 >= 0x80 && b1 <= 0x8f
                    : b1 >= 0x80 && b1 <= 0xbf;
            return secondOk && isContinuation(bytes[i + 2]) && isContinuation(bytes[i + 3]) ? 4 : 0;
        }
        return 0;
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xc0) == 0x80;
    }

    private static int decode(byte[] bytes, int i, int length) {
        int b0 = bytes[i] & 0xff;
        return switch (length) {
            case 2 -> ((b0 & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
            case 3 -> ((b0 & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
            default -> ((b0 & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6)
                    | (bytes[i + 3] & 0x3f);
        };
    }
}
