package io.kfp.common.socket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineRecordTest {

    @Test
    void linesBecomeRecordsWithAnOptionalKey() {
        LineRecord noKey = new LineRecord(null);
        assertThat(noKey.key(utf8("a:b"))).isNull();
        assertThat(new String(noKey.value(utf8("a:b")), StandardCharsets.UTF_8)).isEqualTo("a:b");
        LineRecord keyed = new LineRecord(":");
        assertThat(new String(keyed.key(utf8("user-1:clicked:twice")), StandardCharsets.UTF_8))
                .isEqualTo("user-1");
        assertThat(new String(keyed.value(utf8("user-1:clicked:twice")), StandardCharsets.UTF_8))
                .isEqualTo("clicked:twice");
        assertThat(keyed.key(utf8("no delimiter"))).isNull();
        assertThat(keyed.value(utf8(""))).isEmpty();
    }

    @Test
    void theKeySplitWorksOnTheLineBytesWhateverTheyAre() {
        // Bytes that are not UTF-8 on either side of a multi-byte delimiter stay as they were.
        LineRecord keyed = new LineRecord("\u2192"); // "->" as one character: E2 86 92
        byte[] line = {
            (byte) 0xff,
            'k',
            (byte) 0xe2,
            (byte) 0x86,
            (byte) 0x92,
            (byte) 0xc3,
            '(',
            (byte) 0xe2,
            (byte) 0x86,
            (byte) 0x92,
            0
        };
        assertThat(keyed.key(line)).containsExactly(0xff, 'k');
        assertThat(keyed.value(line)).containsExactly(0xc3, '(', 0xe2, 0x86, 0x92, 0);
        // A delimiter cut short at the end of the line is no delimiter.
        assertThat(keyed.key(new byte[] {'a', (byte) 0xe2, (byte) 0x86})).isNull();
        assertThat(new LineRecord(null).value(line)).isSameAs(line);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
