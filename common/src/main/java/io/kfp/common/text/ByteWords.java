package io.kfp.common.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of an array read as one long, and the bit tests that check all eight at once ("Bit
 * Twiddling Hacks"): how {@link Utf8} finds ASCII runs and the sink finds printable text without a
 * branch per byte.
 */
public final class ByteWords {

    /** Each byte's lowest bit: {@code n * ONES} is n in every byte. */
    public static final long ONES = 0x0101010101010101L;

    /** Each byte's high bit: none set means all eight bytes are ASCII. */
    public static final long HIGH_BITS = 0x8080808080808080L;

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private ByteWords() {}

    /** The eight bytes from {@code i} as one long. */
    public static long at(byte[] bytes, int i) {
        return (long) LONGS.get(bytes, i);
    }

    /** Non-zero if any of the eight bytes is zero. */
    public static long hasZeroByte(long word) {
        return (word - ONES) & ~word & HIGH_BITS;
    }

    /** Non-zero if any of the eight bytes is below {@code n} (exact for n <= 128). */
    public static long hasByteBelow(long word, int n) {
        return (word - n * ONES) & ~word & HIGH_BITS;
    }
}
