package io.kfp.ingest.socket;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;

/**
 * Bytes of a line -> text in the source's charset. Malformed bytes are replaced by U+FFFD (the
 * line is kept and reported as malformed) or make the line rejected, per policy.
 */
final class LineDecoder {

    /** A decoded line, or {@code null} text for a rejected one. */
    record Decoded(String text, boolean malformed) {}

    private final Charset charset;
    private final boolean reject;
    private final CharsetDecoder strict;

    LineDecoder(Charset charset, SocketSourceSettings.MalformedPolicy policy) {
        this.charset = charset;
        this.reject = policy == SocketSourceSettings.MalformedPolicy.REJECT;
        this.strict =
                charset.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    Decoded decode(byte[] bytes, int offset, int length) {
        // The lenient decoder is the fast path; only a replacement character in its output
        // (rare: malformed input, or a U+FFFD really sent) calls for the strict check.
        String text = new String(bytes, offset, length, charset);
        if (text.indexOf('\uFFFD') < 0 || isWellFormed(bytes, offset, length)) {
            return new Decoded(text, false);
        }
        return new Decoded(reject ? null : text, true);
    }

    private boolean isWellFormed(byte[] bytes, int offset, int length) {
        try {
            CharBuffer ignored = strict.reset().decode(ByteBuffer.wrap(bytes, offset, length));
            return ignored != null;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
