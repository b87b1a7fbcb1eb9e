package io.kfp.common.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Decides which settings are secrets and hides their values wherever configuration is printed or
 * logged. Errs on the side of hiding: a key merely mentioning a password is hidden.
 */
public final class SecretRedaction {

    public static final String REDACTED = "******";

    private static final List<String> SECRET_KEY_PARTS =
            List.of(
                    "password",
                    "passwd",
                    "secret",
                    "jaas.config",
                    "token",
                    "apikey",
                    "api-key",
                    "api.key",
                    "credential",
                    "ssl.key",
                    "private");

    private static final Pattern SECRET_VALUE =
            Pattern.compile("(?i)(password|passwd|secret|token)\\s*[=:]|LoginModule");

    private SecretRedaction() {}

    public static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return SECRET_KEY_PARTS.stream().anyMatch(lower::contains);
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
