package io.kfp.relay;

import java.nio.charset.StandardCharsets;

/**
 * Kafka key bytes as a Flink key. Arrays cannot be Flink keys (their hashCode is identity), so each
 * byte becomes one ISO-8859-1 char: lossless for any bytes, with a value-based hashCode and a
 * compact serializer. A missing key maps to a char no byte can produce.
 */
final class WindowKeys {

    /** U+FFFF: never the result of decoding ISO-8859-1 (which only yields U+0000..U+00FF). */
    static final String NO_KEY = "\uFFFF";

    private WindowKeys() {}

    static String of(byte[] key) {
        return key == null ? NO_KEY : new String(key, StandardCharsets.ISO_8859_1);
    }

    static byte[] bytes(String windowKey) {
        return NO_KEY.equals(windowKey) ? null : windowKey.getBytes(StandardCharsets.ISO_8859_1);
    }
}
