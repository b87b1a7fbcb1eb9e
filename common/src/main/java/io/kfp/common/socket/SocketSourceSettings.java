package io.kfp.common.socket;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;

/**
 * Everything the socket source needs, resolved and validated (see {@link SocketOptions}).
 *
 * @param delimiter bytes that end a line, in the source's charset
 * @param maxRetries reconnect attempts after a failed or lost connection: 0 none, -1 forever
 * @param idleTimeout reconnect after this long without a byte from the peer; zero: never
 * @param bounded end each endpoint's split when the peer closes the connection
 */
public record SocketSourceSettings(
        List<Endpoint> endpoints,
        byte[] delimiter,
        String charset,
        MalformedPolicy malformed,
        int maxLineLength,
        OversizedPolicy oversized,
        boolean dropEmptyLines,
        Duration connectTimeout,
        int maxRetries,
        Duration initialBackoff,
        Duration maxBackoff,
        Duration idleTimeout,
        boolean bounded)
        implements Serializable {

    /** What to do with a line whose bytes are not valid in the charset. */
    public enum MalformedPolicy {
        /** Keep the line's bytes as they are (counted). */
        KEEP,
        /** Replace the bad bytes with U+FFFD and keep the line (counted). */
        REPLACE,
        /** Drop the whole line (counted, logged). */
        REJECT;
    }

    /** What to do with a line longer than the maximum. */
    public enum OversizedPolicy {
        /** Skip it up to its delimiter without buffering it (counted, logged). */
        SKIP,
        /** Fail the job, naming the endpoint and the size. */
        FAIL;
    }

    public SocketSourceSettings {
        endpoints = List.copyOf(endpoints);
        delimiter = delimiter.clone();
    }

    /** A trailing {@code \r} is stripped when lines end with a plain {@code \n}. */
    boolean stripCarriageReturn() {
        return delimiter.length == 1 && delimiter[0] == '\n';
    }
}
