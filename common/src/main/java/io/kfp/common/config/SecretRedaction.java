package io.kfp.common.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * Decides which settings are secrets and hides their values wherever configuration is printed or
 * logged. Flink's own rule first ({@link GlobalConfiguration#isSensitive}: what its logs and web UI
 * hide - password, secret, token, apikey, jaas.config, ...); then what it lacks for Kafka client
 * settings and hand-written files: keys naming a passwd, an api.key, a credential, an ssl.key or a
 * private key, and values that carry a secret whatever their key (a JAAS config under a misspelt
 * key). Errs on the side of hiding: a key merely mentioning a password is hidden.
 */
public final class SecretRedaction {

    public static final String REDACTED = GlobalConfiguration.HIDDEN_CONTENT;

    /** Key parts Flink's {@link GlobalConfiguration#isSensitive} does not hide. */
    private static final List<String> MORE_SECRET_KEY_PARTS =
            List.of("passwd", "api.key", "credential", "ssl.key", "private");

    private static final Pattern SECRET_VALUE =
            Pattern.compile("(?i)(password|passwd|secret|token)\\s*[=:]|LoginModule");

    private SecretRedaction() {}

    public static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return GlobalConfiguration.isSensitive(key)
                || MORE_SECRET_KEY_PARTS.stream().anyMatch(lower::contains);
    }

    /**
     * Whether a value carries a secret whatever its key is called, e.g. a JAAS config under a
     * misspelt key: {@code ... LoginModule required username="u" password="p";}.
     */
    public static boolean looksSecret(String value) {
        return SECRET_VALUE.matcher(value).find();
    }

    /** The value to show for {@code key}: the value itself, or {@link #REDACTED}. */
    public static String redact(String key, String value) {
        if (value == null) {
            return null;
        }
        return isSecret(key) || looksSecret(value) ? REDACTED : value;
    }

    /** A copy of {@code settings} safe to print. */
    public static Map<String, String> redactAll(Map<String, String> settings) {
        Map<String, String> safe = new LinkedHashMap<>();
        settings.forEach((k, v) -> safe.put(k, redact(k, v)));
        return safe;
    }
}
