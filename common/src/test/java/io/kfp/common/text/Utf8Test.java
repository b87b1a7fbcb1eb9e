package io.kfp.common.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {

    @Test
    void agreesWithTheJdksStrictDecoderOnEveryRangeOfMixedBytes() {
        Random random = new Random(7);
        int[] interesting = {
            0, 'a', 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff
        };
        for (int round = 0; round < 5_000; round++) {
            // Mostly ASCII with a few other bytes anywhere, so the eight-at-a-time ASCII path is
            // left and re-entered at every position, and lengths around multiples of eight.
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] =
                        (byte)
                                (random.nextInt(8) == 0
                                        ? interesting[random.nextInt(interesting.length)]
                                        : 0x20 + random.nextInt(0x5f));
            }
            int offset = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
            int length = random.nextInt(bytes.length - offset + 1);
            assertThat(Utf8.isWellFormed(bytes, offset, length))
                    .as("%s [%d, +%d)", HexFormat.of().formatHex(bytes), offset, length)
                    .isEqualTo(jdkSaysWellFormed(bytes, offset, length));
        }
    }

    @Test
    void aBadByteIsFoundWhereverItSitsInALongAsciiLine() {
        for (int at = 0; at < 100; at++) {
            byte[] line = "x".repeat(100).getBytes(StandardCharsets.US_ASCII);
            assertThat(Utf8.isWellFormed(line, 0, line.length)).isTrue();
            line[at] = (byte) 0xff;
            assertThat(Utf8.isWellFormed(line, 0, line.length)).as("0xff at %d", at).isFalse();
            assertThat(Utf8.isWellFormed(line, at + 1, line.length - at - 1))
                    .as("after it")
                    .isTrue();
        }
    }

    @Test
    void aSequenceCutOffByTheRangesEndIsNotWellFormed() {
        byte[] euro = "abcdefg€".getBytes(StandardCharsets.UTF_8); // 7 ASCII, then 3 bytes
        assertThat(Utf8.isWellFormed(euro, 0, euro.length)).isTrue();
        assertThat(Utf8.isWellFormed(euro, 0, euro.length - 1)).isFalse();
    }

    private static boolean jdkSaysWellFormed(byte[] bytes, int offset, int length) {
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, offset, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
