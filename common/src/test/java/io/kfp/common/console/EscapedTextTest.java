package io.kfp.common.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.text.Utf8;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EscapedTextTest {

    private static String escape(byte... bytes) {
        ByteLine out = new ByteLine(4);
        EscapedText.append(bytes, out);
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    @Test
    void aLineIsPlainOnlyIfEveryByteIsPrintableAsciiOtherThanBackslashWhereverTheOtherSits() {
        for (int b = 0; b < 256; b++) {
            boolean plain = b >= 0x20 && b < 0x7f && b != '\\';
            for (int at = 0; at < 24; at++) {
                byte[] line = "abcdefghijklmnopqrstuvwx".getBytes(StandardCharsets.US_ASCII);
                line[at] = (byte) b;
                assertThat(EscapedText.isPlain(line)).as("0x%02x at %d", b, at).isEqualTo(plain);
                if (!plain) {
                    ByteLine out = new ByteLine(1);
                    EscapedText.append(line, out);
                    assertThat(new String(out.toByteArray(), StandardCharsets.UTF_8))
                            .as("0x%02x at %d", b, at)
                            .startsWith(new String(line, 0, at, StandardCharsets.US_ASCII));
                }
            }
        }
    }

    @Test
    void validUtf8IsPrintedAsText() {
        String text = "héllo wörld – 日本語 🎉";
        assertThat(escape(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(text);
    }

    @Test
    void controlCharactersAndBackslashAreEscapedSoARecordStaysOnOneLine() {
        assertThat(escape("a\nb\r\tc\\d".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("a\\nb\\r\\tc\\\\d");
        assertThat(escape(bytes(0, 0x1b, 0x7f))).isEqualTo("\\x00\\x1b\\x7f");
        assertThat(escape(bytes(0xc2, 0x85))).as("C1 control NEL").isEqualTo("\\xc2\\x85");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "lone continuation byte|80|\\x80",
                "invalid lead byte|ff|\\xff",
                "overlong two-byte NUL|c0 80|\\xc0\\x80",
                "overlong three-byte|e0 80 af|\\xe0\\x80\\xaf",
                "truncated at the end|e6 97|\\xe6\\x97",
                "bad continuation keeps the next byte|c3 28|\\xc3(",
                "UTF-16 surrogate|ed a0 80|\\xed\\xa0\\x80",
                "above U+10FFFF|f4 90 80 80|\\xf4\\x90\\x80\\x80",
                "valid around invalid|41 ff 42 c3 a9|A\\xffBé"
            })
    void invalidBytesArePrintedAsHexAndTheRestSurvives(String name, String hex, String expected) {
        String[] parts = hex.split(" ");
        byte[] b = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            b[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        assertThat(escape(b)).isEqualTo(expected);
    }

    @Test
    void plainAsciiIsRecognisedAndRunsOfItSurviveAroundEscapes() {
        assertThat(
                        EscapedText.isPlain(
                                "plain text, 100% ASCII ~".getBytes(StandardCharsets.US_ASCII)))
                .isTrue();
        assertThat(EscapedText.isPlain(new byte[0])).isTrue();
        assertThat(EscapedText.isPlain("back\\slash".getBytes(StandardCharsets.US_ASCII)))
                .isFalse();
        assertThat(EscapedText.isPlain(bytes(0x41, 0x0a))).isFalse();
        assertThat(EscapedText.isPlain(bytes(0x41, 0x7f))).isFalse();
        assertThat(EscapedText.isPlain(bytes(0xc3, 0xa9))).isFalse();
        assertThat(escape("a long plain run\tthen more\\".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("a long plain run\\tthen more\\\\");
    }

    @Test
    void everySingleByteValueProducesOneLineWithoutThrowing() {
        for (int i = 0; i < 256; i++) {
            assertThat(escape(bytes(i, 0xe2, i, 0x82))).doesNotContain("\n", "\r");
        }
    }

    @Test
    void theLineGivesBackEveryByteItWasMadeFromAndIsItselfValidUtf8() {
        Random random = new Random(42);
        for (int round = 0; round < 2_000; round++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                // Mostly bytes around the UTF-8 boundaries, so valid and broken sequences mix.
                int[] interesting = {
                    0, '\n', '\\', 'x', 0x7f, 0x80, 0xbf, 0xc2, 0xc3, 0xe0, 0xe2, 0xed, 0xf0, 0xf4,
                    0xff
                };
                bytes[i] =
                        (byte)
                                (random.nextBoolean()
                                        ? interesting[random.nextInt(interesting.length)]
                                        : random.nextInt(256));
            }
            ByteLine out = new ByteLine(1);
            EscapedText.append(bytes, out);
            byte[] line = out.toByteArray();
            assertThat(Utf8.isWellFormed(line, 0, line.length))
                    .as("printed as valid UTF-8")
                    .isTrue();
            assertThat(line).as("one line").doesNotContain((byte) '\n', (byte) '\r');
            assertThat(unescape(line)).as(HexFormat.of().formatHex(bytes)).containsExactly(bytes);
        }
    }

    /** Reads a printed line back into the bytes it was made from: the escapes are unambiguous. */
    private static byte[] unescape(byte[] line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < line.length; i++) {
            if (line[i] != '\\') {
                out.write(line[i]);
                continue;
            }
            char c = (char) line[++i];
            switch (c) {
                case 'n' -> out.write('\n');
                case 'r' -> out.write('\r');
                case 't' -> out.write('\t');
                case '\\' -> out.write('\\');
                case 'x' -> {
                    out.write(
                            Integer.parseInt(
                                    new String(line, i + 1, 2, StandardCharsets.US_ASCII), 16));
                    i += 2;
                }
                default -> throw new AssertionError("unknown escape \\" + c);
            }
        }
        return out.toByteArray();
    }
}
