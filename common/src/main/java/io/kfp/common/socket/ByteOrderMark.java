package io.kfp.common.socket;

/**
 * What the first bytes of a connection say about its encoding. A UTF-8 byte order mark (EF BB BF)
 * marks the encoding and is not text: with the UTF-8 charset it is dropped. One of UTF-16 or UTF-32
 * (FF FE, FE FF) means every character has NUL bytes beside it and the line delimiter is two or
 * four bytes: cut as ASCII-compatible lines, that input would be garbled, so the connection is
 * refused with a message saying how to send UTF-8 instead.
 */
enum ByteOrderMark {
    /** The stream starts with something else: its first bytes are part of the first line. */
    NONE(0),
    /** EF BB BF. */
    UTF_8(3),
    /** FF FE (UTF-16LE, or UTF-32LE with FF FE 00 00) or FE FF (UTF-16BE). */
    UTF_16_OR_32(2),
    /** Too few bytes yet to tell (EF, EF BB, FF or FE so far). */
    UNDECIDED(0);

    /** How many bytes the mark has. */
    final int length;

    ByteOrderMark(int length) {
        this.length = length;
    }

    /** The mark the first {@code length} bytes of a connection begin with. */
    static ByteOrderMark of(byte[] head, int length) {
        if (length == 0) {
            return UNDECIDED;
        }
        int b0 = head[0] & 0xff;
        if (b0 == 0xff || b0 == 0xfe) {
            if (length < 2) {
                return UNDECIDED;
            }
            int b1 = head[1] & 0xff;
            return b0 == 0xff && b1 == 0xfe || b0 == 0xfe && b1 == 0xff ? UTF_16_OR_32 : NONE;
        }
        if (b0 == 0xef) {
            for (int i = 1; i < 3; i++) {
                if (length <= i) {
                    return UNDECIDED;
                }
                if ((head[i] & 0xff) != (i == 1 ? 0xbb : 0xbf)) {
                    return NONE;
                }
            }
            return UTF_8;
        }
        return NONE;
    }

    /** The mark's bytes as hex, e.g. "FF FE". */
    String hex(byte[] head) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append(i > 0 ? " " : "").append(String.format("%02X", head[i] & 0xff));
        }
        return text.toString();
    }
}
