package io.kfp.common.socket;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.Escapes;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaSinkOptions;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.UnsupportedCharsetException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Where a job reads text lines from over TCP (it connects, like Flink's socketTextStream) and how
 * it cuts, decodes and keys them: the options of {@link SocketLineSource} and {@link LineRecord}.
 * {@code ingest.*}, their keys before they were shared, are still read.
 */
public final class SocketOptions implements OptionGroup {

    public static final SocketOptions GROUP = new SocketOptions();

    /** Whether empty lines become (empty) Kafka records. */
    public enum EmptyLines {
        KEEP,
        DROP;
    }

    public static final ConfigOption<String> ENDPOINTS =
            key("socket.endpoints")
                    .stringType()
                    .defaultValue("localhost:9999")
                    .withDeprecatedKeys("ingest.endpoints")
                    .withDescription(
                            "Comma-separated host:port list to connect to (the job is the client,"
                                    + " like socketTextStream). Each endpoint is read by its own"
                                    + " reader, in parallel.");

    public static final ConfigOption<String> DELIMITER =
            key("socket.delimiter")
                    .stringType()
                    .defaultValue("\\n")
                    .withDeprecatedKeys("ingest.delimiter")
                    .withDescription(
                            "What ends a line; escapes \\n, \\r, \\t, \\\\ are understood. With \\n a"
                                    + " trailing \\r is stripped, so CRLF input works.");

    public static final ConfigOption<String> CHARSET =
            key("socket.charset")
                    .stringType()
                    .defaultValue("UTF-8")
                    .withDeprecatedKeys("ingest.charset")
                    .withDescription(
                            "Charset of the incoming bytes, ASCII-compatible (lines are cut on bytes); lines are written as UTF-8. A UTF-16 or UTF-32 peer is refused with a message saying how to send UTF-8.");

    public static final ConfigOption<SocketSourceSettings.MalformedPolicy> MALFORMED =
            key("socket.malformed")
                    .enumType(SocketSourceSettings.MalformedPolicy.class)
                    .defaultValue(SocketSourceSettings.MalformedPolicy.KEEP)
                    .withDeprecatedKeys("ingest.malformed")
                    .withDescription(
                            "A line not valid in the charset: keep its bytes as they are, replace the bad bytes with U+FFFD, or reject (drop) the line; counted in malformedLines either way.");

    public static final ConfigOption<MemorySize> MAX_LINE_LENGTH =
            key("socket.max-line-length")
                    .memoryType()
                    .defaultValue(MemorySize.parse("1000 kb"))
                    .withDeprecatedKeys("ingest.max-line-length")
                    .withDescription(
                            "Longest line accepted, which bounds memory per endpoint. At most the producer's max.request.size less 128 bytes.");

    public static final ConfigOption<SocketSourceSettings.OversizedPolicy> OVERSIZED_LINES =
            key("socket.oversized-lines")
                    .enumType(SocketSourceSettings.OversizedPolicy.class)
                    .defaultValue(SocketSourceSettings.OversizedPolicy.SKIP)
                    .withDeprecatedKeys("ingest.oversized-lines")
                    .withDescription(
                            "skip: drop a longer line up to its delimiter without buffering it"
                                    + " (counted in oversizedLinesSkipped, logged with endpoint and"
                                    + " size); fail: fail the job.");

    public static final ConfigOption<EmptyLines> EMPTY_LINES =
            key("socket.empty-lines")
                    .enumType(EmptyLines.class)
                    .defaultValue(EmptyLines.KEEP)
                    .withDeprecatedKeys("ingest.empty-lines")
                    .withDescription(
                            "keep: an empty line becomes a record with an empty value, so lines in"
                                    + " = records out; drop: skip it (counted in"
                                    + " emptyLinesDropped).");

    public static final ConfigOption<String> KEY_DELIMITER =
            key("socket.key-delimiter")
                    .stringType()
                    .noDefaultValue()
                    .withDeprecatedKeys("ingest.key-delimiter")
                    .withDescription(
                            "Unset: records have no key. Set (e.g. ':'): the bytes before its first occurrence are the key, the rest the value; lines without it get no key.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT =
            key("socket.connect-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDeprecatedKeys("ingest.connect-timeout")
                    .withDescription("How long one connection attempt may take.");

    public static final ConfigOption<Integer> MAX_RETRIES =
            key("socket.max-retries")
                    .intType()
                    .defaultValue(10)
                    .withDeprecatedKeys("ingest.max-retries")
                    .withDescription(
                            "Reconnect attempts after a failed or lost connection before the job fails, naming host:port: 0 gives up at once, -1 retries forever. The count restarts after each successful connection.");

    public static final ConfigOption<Duration> RETRY_BACKOFF =
            key("socket.retry-backoff")
                    .durationType()
                    .defaultValue(Duration.ofMillis(500))
                    .withDeprecatedKeys("ingest.retry-backoff")
                    .withDescription(
                            "Wait before the first retry; doubles with each failed attempt.");

    public static final ConfigOption<Duration> RETRY_MAX_BACKOFF =
            key("socket.retry-max-backoff")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDeprecatedKeys("ingest.retry-max-backoff")
                    .withDescription("Longest wait between attempts.");

    public static final ConfigOption<Duration> IDLE_TIMEOUT =
            key("socket.idle-timeout")
                    .durationType()
                    .defaultValue(Duration.ZERO)
                    .withDeprecatedKeys("ingest.idle-timeout")
                    .withDescription(
                            "Reconnect when an endpoint has sent nothing for this long (a peer that hangs without closing). 0: never, for inputs that may be quiet for long.");

    public static final ConfigOption<Boolean> BOUNDED =
            key("socket.bounded")
                    .booleanType()
                    .defaultValue(false)
                    .withDeprecatedKeys("ingest.bounded")
                    .withDescription(
                            "End an endpoint when its peer closes the connection (and the job when"
                                    + " all have), for one-shot loads. Off: reconnect.");

    private SocketOptions() {}

    @Override
    public String title() {
        return "Socket input";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(
                ENDPOINTS,
                DELIMITER,
                CHARSET,
                MALFORMED,
                MAX_LINE_LENGTH,
                OVERSIZED_LINES,
                EMPTY_LINES,
                KEY_DELIMITER,
                CONNECT_TIMEOUT,
                MAX_RETRIES,
                RETRY_BACKOFF,
                RETRY_MAX_BACKOFF,
                IDLE_TIMEOUT,
                BOUNDED);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        List<String> seen = new ArrayList<>();
        for (String text : config.get(ENDPOINTS).split(",")) {
            try {
                Endpoint endpoint = Endpoint.parse(text);
                if (seen.contains(endpoint.toString())) {
                    problems.add(
                            ENDPOINTS.key(),
                            endpoint + " is listed twice.",
                            "list each endpoint once.");
                }
                seen.add(endpoint.toString());
            } catch (IllegalArgumentException e) {
                problems.add(
                        ENDPOINTS.key(),
                        e.getMessage() + ".",
                        "write host:port[,host:port...], e.g. localhost:9999.");
            }
        }
        Charset charset = null;
        try {
            charset = Charset.forName(config.get(CHARSET));
            if (!Arrays.equals("\n".getBytes(charset), new byte[] {'\n'})) {
                // Lines are cut on bytes: UTF-16/32 (and their byte-order marks) would never match.
                problems.add(
                        CHARSET.key(),
                        "is not ASCII-compatible, so lines cannot be cut on bytes.",
                        "use UTF-8, ISO-8859-1, windows-1252 or another ASCII-compatible charset.");
                charset = null;
            }
        } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
            problems.add(
                    CHARSET.key(),
                    "not a charset this JVM knows.",
                    "use e.g. UTF-8, ISO-8859-1, windows-1252.");
        }
        String delimiter = Escapes.unescape(config.get(DELIMITER));
        if (delimiter.isEmpty()) {
            problems.add(DELIMITER.key(), "must not be empty.", "use e.g. \\n.");
        } else if (charset != null && !charset.newEncoder().canEncode(delimiter)) {
            problems.add(
                    DELIMITER.key(),
                    "cannot be written in " + charset + ".",
                    "use a delimiter the charset can express.");
        }
        long max = config.get(MAX_LINE_LENGTH).getBytes();
        if (max < 1 || max > 64L * 1024 * 1024) {
            problems.add(
                    MAX_LINE_LENGTH.key(), "must be between 1 byte and 64 mb.", "use e.g. 1 mb.");
        }
        try {
            long request = KafkaSinkOptions.maxRequestSize(config);
            if (max >= 1 && max + KafkaSinkOptions.RECORD_OVERHEAD_BYTES > request) {
                problems.add(
                        MAX_LINE_LENGTH.key(),
                        "a line this long does not fit in one producer request (max.request.size "
                                + request
                                + " bytes, of which "
                                + KafkaSinkOptions.RECORD_OVERHEAD_BYTES
                                + " go to record overhead):"
                                + " such a line would fail the job at every restart.",
                        "use at most "
                                + (request - KafkaSinkOptions.RECORD_OVERHEAD_BYTES)
                                + " bytes, or raise"
                                + " kafka.properties.max.request.size (and the topic's max.message.bytes).");
            }
        } catch (NumberFormatException reportedByKafkaSinkOptions) {
            // kafka.properties.max.request.size is not a number: KafkaSinkOptions names it.
        }
        config.getOptional(KEY_DELIMITER)
                .filter(String::isEmpty)
                .ifPresent(
                        k ->
                                problems.add(
                                        KEY_DELIMITER.key(),
                                        "must not be empty.",
                                        "use e.g. ':' or remove it."));
        if (config.get(MAX_RETRIES) < -1) {
            problems.add(MAX_RETRIES.key(), "must be -1 (forever), 0 or more.", "use e.g. 10.");
        }
        if (config.get(CONNECT_TIMEOUT).compareTo(Duration.ofMillis(1)) < 0) {
            problems.add(CONNECT_TIMEOUT.key(), "must be positive.", "use e.g. 5 s.");
        }
        if (config.get(RETRY_BACKOFF).compareTo(Duration.ofMillis(1)) < 0) {
            problems.add(RETRY_BACKOFF.key(), "must be positive.", "use e.g. 500 ms.");
        }
        if (config.get(IDLE_TIMEOUT).isNegative()) {
            problems.add(
                    IDLE_TIMEOUT.key(),
                    "must not be negative.",
                    "use e.g. 5 min, or 0 to never reconnect a quiet endpoint.");
        }
        if (config.get(RETRY_MAX_BACKOFF).compareTo(config.get(RETRY_BACKOFF)) < 0) {
            problems.add(
                    RETRY_MAX_BACKOFF.key(),
                    "is shorter than " + RETRY_BACKOFF.key() + ".",
                    "make it at least " + RETRY_BACKOFF.key() + ".");
        }
    }

    /** The socket source's settings from a validated configuration. */
    public static SocketSourceSettings settings(ReadableConfig config) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (String text : config.get(ENDPOINTS).split(",")) {
            endpoints.add(Endpoint.parse(text));
        }
        Charset charset = Charset.forName(config.get(CHARSET));
        return new SocketSourceSettings(
                endpoints,
                Escapes.unescape(config.get(DELIMITER)).getBytes(charset),
                charset.name(),
                config.get(MALFORMED),
                (int) config.get(MAX_LINE_LENGTH).getBytes(),
                config.get(OVERSIZED_LINES),
                config.get(EMPTY_LINES) == EmptyLines.DROP,
                config.get(CONNECT_TIMEOUT),
                config.get(MAX_RETRIES),
                config.get(RETRY_BACKOFF),
                config.get(RETRY_MAX_BACKOFF),
                config.get(IDLE_TIMEOUT),
                config.get(BOUNDED));
    }
}
