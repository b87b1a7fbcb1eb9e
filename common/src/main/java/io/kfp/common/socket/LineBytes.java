package io.kfp.common.socket;

import io.kfp.common.text.Utf8;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of a line -> the bytes of its record. A line valid in the source's charset is written
 * as UTF-8: with the default UTF-8 that is its bytes as they are, with another charset its text
 * re-encoded. A line that is not valid (counted as malformed) is, per {@code socket.malformed}:
 * kept byte for byte (keep, the default - as Kafka's console producer does), decoded with U+FFFD
 * for each bad sequence (replace), or dropped (reject, {@code null}).
 */
final class LineBytes {

    /**
     * A line's record bytes ({@code null}: rejected) and whether the line was valid in the charset.
     */
    record Line(byte[] bytes, boolean malformed) {}

    private final Charset charset;
    private final boolean utf8;
    private final SocketSourceSettings.MalformedPolicy policy;
    private final CharsetDecoder strict;

    LineBytes(Charset charset, SocketSourceSettings.MalformedPolicy policy) {
        this.charset = charset;
        this.utf8 = charset.equals(StandardCharsets.UTF_8);
        this.policy = policy;
        this.strict =
                charset.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    Line line(byte[] bytes, int offset, int length) {
        if (utf8) {
            // The default: a valid line's bytes are its record, no decoding and encoding.
            if (Utf8.isWellFormed(bytes, offset, length)) {
                return new Line(Arrays.copyOfRange(bytes, offset, offset + length), false);
            }
        } else if (isWellFormed(bytes, offset, length)) {
            return new Line(
                    new String(bytes, offset, length, charset).getBytes(StandardCharsets.UTF_8),
                    false);
        }
        return switch (policy) {
            case KEEP -> new Line(Arrays.copyOfRange(bytes, offset, offset + length), true);
            case REPLACE ->
                    new Line(
                            new String(bytes, offset, length, charset)
                                    .getBytes(StandardCharsets.UTF_8),
                            true);
            case REJECT -> new Line(null, true);
        };
    }

    private boolean isWellFormed(byte[] bytes, int offset, int length) {
        try {
            return strict.reset().decode(ByteBuffer.wrap(bytes, offset, length)) != null;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
