package io.kfp.common.text;

/**
 * Well-formed UTF-8, checked on bytes, following the Unicode table of well-formed byte sequences
 * (no overlong forms, no surrogates, nothing above U+10FFFF). Ingest counts the lines that are not
 * UTF-8 while passing their bytes on; the sink prints valid sequences as text and escapes the rest.
 * The JDK only answers this by decoding into chars, which is the copy both avoid.
 */
public final class Utf8 {

    private Utf8() {}

    /**
     * Length of the well-formed sequence starting at {@code i} (1 for ASCII, 2 to 4), or 0 if the
     * bytes there, up to {@code end}, are not one (bad lead byte, missing or bad continuation,
     * overlong form, surrogate, above U+10FFFF).
     */
    public static int sequenceLength(byte[] bytes, int i, int end) {
        int b0 = bytes[i] & 0xff;
        if (b0 < 0x80) {
            return 1;
        }
        if (b0 >= 0xc2 && b0 <= 0xdf) {
            return i + 1 < end && isContinuation(bytes[i + 1]) ? 2 : 0;
        }
        if (b0 >= 0xe0 && b0 <= 0xef) {
            if (i + 2 >= end) {
                return 0;
            }
            int b1 = bytes[i + 1] & 0xff;
            boolean secondOk =
                    b0 == 0xe0
                            ? b1 >= 0xa0 && b1 <= 0xbf
                            : b0 == 0xed ? b1 >= 0x80 && b1 <= 0x9f : b1 >= 0x80 && b1 <= 0xbf;
            return secondOk && isContinuation(bytes[i + 2]) ? 3 : 0;
        }
        if (b0 >= 0xf0 && b0 <= 0xf4) {
            if (i + 3 >= end) {
                return 0;
            }
            int b1 = bytes[i + 1] & 0xff;
            boolean secondOk =
                    b0 == 0xf0
                            ? b1 >= 0x90 && b1 <= 0xbf
                            : b0 == 0xf4 ? b1 >= 0x80 && b1 <= 0x8f : b1 >= 0x80 && b1 <= 0xbf;
            return secondOk && isContinuation(bytes[i + 2]) && isContinuation(bytes[i + 3]) ? 4 : 0;
        }
        return 0;
    }

    /** Whether {@code length} bytes from {@code offset} are well-formed UTF-8. */
    public static boolean isWellFormed(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        while (i < end) {
            // ASCII, the common case: eight bytes at a time (it was a tenth of ingest's CPU byte by
            // byte).
            while (i + Long.BYTES <= end && (ByteWords.at(bytes, i) & ByteWords.HIGH_BITS) == 0) {
                i += Long.BYTES;
            }
            if (i == end) {
                break;
            }
            if (bytes[i] >= 0) {
                i++;
                continue;
            }
            int n = sequenceLength(bytes, i, end);
            if (n == 0) {
                return false;
            }
            i += n;
        }
        return true;
    }

    /** The code point of the well-formed sequence of {@code length} bytes at {@code i}. */
    public static int decode(byte[] bytes, int i, int length) {
        int b0 = bytes[i] & 0xff;
        return switch (length) {
            case 1 -> b0;
            case 2 -> ((b0 & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
            case 3 -> ((b0 & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
            default ->
                    ((b0 & 0x07) << 18)
                            | ((bytes[i + 1] & 0x3f) << 12)
                            | ((bytes[i + 2] & 0x3f) << 6)
                            | (bytes[i + 3] & 0x3f);
        };
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xc0) == 0x80;
    }
}
