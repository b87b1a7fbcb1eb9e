package io.kfp.common.socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {

    /** Collects lines as text and oversized sizes as "<oversized N>". */
    static final class Collected implements LineSplitter.Lines {
        final List<String> out = new ArrayList<>();

        @Override
        public void line(byte[] bytes, int offset, int length) {
            out.add(new String(bytes, offset, length, StandardCharsets.ISO_8859_1));
        }

        @Override
        public void oversized(long length) {
            out.add("<oversized " + length + ">");
        }
    }

    private static List<String> split(LineSplitter splitter, String... chunks) throws IOException {
        Collected c = new Collected();
        for (String chunk : chunks) {
            byte[] b = chunk.getBytes(StandardCharsets.ISO_8859_1);
            splitter.feed(b, 0, b.length, c);
        }
        splitter.finish(c);
        return c.out;
    }

    private static LineSplitter newline(int max) {
        return new LineSplitter(new byte[] {'\n'}, max, true);
    }

    @Test
    void linesSplitAcrossChunksAreJoined() throws IOException {
        assertThat(split(newline(100), "hel", "lo\nwor", "", "ld\n", "\n!"))
                .containsExactly("hello", "world", "", "!");
    }

    @Test
    void crlfLosesItsCarriageReturnButOtherCarriageReturnsStay() throws IOException {
        assertThat(split(newline(100), "a\r\nb\r", "\nc\rd\n\r\n"))
                .containsExactly("a", "b", "c\rd", "");
        assertThat(split(new LineSplitter(new byte[] {';'}, 100, false), "a\r;b"))
                .containsExactly("a\r", "b");
    }

    @Test
    void aLastLineWithoutDelimiterIsStillALine() throws IOException {
        assertThat(split(newline(100), "a\nlast")).containsExactly("a", "last");
        assertThat(split(newline(100), "a\n")).containsExactly("a");
    }

    @Test
    void lengthLimitIsInclusiveAndIgnoresTheStrippedCarriageReturn() throws IOException {
        assertThat(split(newline(3), "abc\nabcd\nabc\r\n", "ab", "cd\n"))
                .containsExactly("abc", "<oversized 4>", "abc", "<oversized 4>");
    }

    @Test
    void anEndlessLineIsSkippedWithoutBeingBufferedAndGoodLinesFollow() throws IOException {
        int max = 1024;
        LineSplitter splitter = newline(max);
        Collected c = new Collected();
        byte[] chunk = "x".repeat(4096).getBytes(StandardCharsets.ISO_8859_1);
        int capacitySeen = 0;
        for (int i = 0; i < 25; i++) { // 100 KiB: 100x the limit
            splitter.feed(chunk, 0, chunk.length, c);
            capacitySeen = Math.max(capacitySeen, splitter.bufferCapacity());
        }
        byte[] rest = "xx\ngood 1\ngood 2\n".getBytes(StandardCharsets.ISO_8859_1);
        splitter.feed(rest, 0, rest.length, c);
        splitter.finish(c);

        assertThat(c.out)
                .containsExactly("<oversized " + (25 * 4096 + 2) + ">", "good 1", "good 2");
        assertThat(capacitySeen).isLessThanOrEqualTo(max + 2);
    }

    @Test
    void anOversizedLineAtTheEndOfTheStreamIsReported() throws IOException {
        assertThat(split(newline(2), "ok\n", "toolong")).containsExactly("ok", "<oversized 7>");
    }

    @Test
    void multiByteDelimitersIncludingOverlappingOnes() throws IOException {
        LineSplitter crlf =
                new LineSplitter("\r\n".getBytes(StandardCharsets.ISO_8859_1), 100, false);
        assertThat(split(crlf, "a\r", "\nb\rc\r\n\r\n")).containsExactly("a", "b\rc", "");
        LineSplitter aab =
                new LineSplitter("aab".getBytes(StandardCharsets.ISO_8859_1), 100, false);
        assertThat(split(aab, "xaaab", "yaa", "bz")).containsExactly("xa", "y", "z");
        LineSplitter pipes = new LineSplitter("||".getBytes(StandardCharsets.ISO_8859_1), 3, false);
        assertThat(split(pipes, "abc||abcdef||ok")).containsExactly("abc", "<oversized 6>", "ok");
    }

    @Test
    void emptyDelimiterIsRejected() {
        assertThatThrownBy(() -> new LineSplitter(new byte[0], 10, false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
