package io.kfp.common.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MemorySize;

/**
 * Checks raw settings against the declared options of a job's groups and, if everything is valid,
 * returns them as a typed Flink {@link Configuration}. Reports every problem at once.
 */
public final class ConfigValidator {

    private ConfigValidator() {}

    /**
     * Validates {@code raw} against {@code groups}.
     *
     * @throws InvalidConfigurationException listing every problem found, including {@code
     *     earlierProblems} (syntax errors found while loading)
     */
    public static Configuration validate(
            RawConfig raw, Collection<OptionGroup> groups, List<ConfigProblem> earlierProblems) {
        List<ConfigProblem> all = new ArrayList<>(earlierProblems);
        ConfigProblems problems = new ConfigProblems(raw);
        Configuration config = Configuration.fromMap(normalizeEnumValues(raw, groups));

        reportUnknownKeys(raw, groups, problems);
        boolean allParsed = true;
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                allParsed &= parses(config, option, raw, problems);
            }
        }
        for (OptionGroup group : groups) {
            try {
                group.validate(config, problems);
            } catch (IllegalArgumentException unparseable) {
                // A cross-option check read an option whose value did not parse. That value is
                // already reported above; the check itself cannot run until it is fixed.
                if (allParsed) {
                    throw unparseable;
                }
            }
        }
        all.addAll(problems.asList());
        if (!all.isEmpty()) {
            throw new InvalidConfigurationException(all);
        }
        return config;
    }

    /** Every key the groups declare, including Flink's own keys accepted as fallbacks. */
    public static Set<String> knownKeys(Collection<OptionGroup> groups) {
        Set<String> keys = new LinkedHashSet<>();
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                keys.add(option.key());
                for (FallbackKey fallback : option.fallbackKeys()) {
                    keys.add(fallback.getKey());
                }
            }
        }
        return keys;
    }

    private static void reportUnknownKeys(
            RawConfig raw, Collection<OptionGroup> groups, ConfigProblems problems) {
        Set<String> known = knownKeys(groups);
        List<String> prefixes =
                groups.stream()
                        .flatMap(g -> g.passThroughPrefixes().stream())
                        .map(OptionGroup.PassThroughPrefix::prefix)
                        .toList();
        List<String> declared =
                groups.stream().flatMap(g -> g.options().stream()).map(ConfigOption::key).toList();
        for (String key : raw.entries().keySet()) {
            if (known.contains(key) || prefixes.stream().anyMatch(key::startsWith)) {
                continue;
            }
            boolean fromEnvironment = raw.entry(key).origin().startsWith("environment ");
            String fix =
                    DidYouMean.suggest(key, declared)
                            .map(
                                    s ->
                                            "did you mean "
                                                    + (fromEnvironment
                                                            ? ConfigLoader.envName(s)
                                                            : "'" + s + "'")
                                                    + "?")
                            .orElse("remove it; run with --help to list every option.");
            problems.add(key, "unknown option for this job.", fix);
        }
    }

    private static boolean parses(
            Configuration config, ConfigOption<?> option, RawConfig raw, ConfigProblems problems) {
        try {
            config.get(option);
            return true;
        } catch (RuntimeException e) {
            problems.add(
                    option.key(),
                    "not " + expected(option, e) + ".",
                    "write " + example(option) + ".");
            return false;
        }
    }

    /**
     * Enum values are accepted with '_' or '-' and in any case, so Flink's own spelling ({@code
     * EXACTLY_ONCE}) works next to ours ({@code exactly-once}): each is replaced by the constant's
     * {@code toString}, which is what Flink's parser matches - Flink's own enums ({@code
     * CheckpointingMode}) and the connector's ({@code DeliveryGuarantee}) alike.
     */
    private static Map<String, String> normalizeEnumValues(
            RawConfig raw, Collection<OptionGroup> groups) {
        Map<String, String> values = raw.values();
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                Class<?> type = typeOf(option);
                if (type.isEnum() && values.containsKey(option.key())) {
                    String given = text(values.get(option.key()).trim());
                    Arrays.stream(type.getEnumConstants())
                            .filter(constant -> text((Enum<?>) constant).equals(given))
                            .findFirst()
                            .ifPresent(constant -> values.put(option.key(), constant.toString()));
                }
            }
        }
        return values;
    }

    /**
     * How an enum value is written in files, --help, the docs and messages: its name in lower case
     * with '-' ({@code exactly-once}), whichever library declares it.
     */
    public static String text(Enum<?> value) {
        return text(value.name());
    }

    private static String text(String name) {
        return name.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The option's value type, for messages. Flink keeps {@code ConfigOption}'s class private; an
     * option with a default tells it by its default, one without by what Flink's own parser makes
     * of a probe value ("1" is a whole number, a duration, a size or a string; "true" a boolean).
     */
    static Class<?> typeOf(ConfigOption<?> option) {
        if (option.hasDefaultValue()) {
            Class<?> type = option.defaultValue().getClass();
            // An enum constant with a body is an anonymous subclass of its enum.
            return type.isAnonymousClass() && type.getSuperclass().isEnum()
                    ? type.getSuperclass()
                    : type;
        }
        for (String probe : List.of("1", "true")) {
            try {
                Object parsed = Configuration.fromMap(Map.of(option.key(), probe)).get(option);
                if (parsed != null) {
                    return parsed.getClass();
                }
            } catch (RuntimeException notThisType) {
                // try the next probe
            }
        }
        return Object.class;
    }

    /** "a duration", "one of exactly-once, at-least-once, none", ... */
    static String expected(ConfigOption<?> option, RuntimeException parseError) {
        Class<?> type = typeOf(option);
        if (type == Duration.class) {
            return "a duration";
        }
        if (type == Boolean.class) {
            return "true or false";
        }
        if (type == Integer.class || type == Long.class) {
            return "a whole number";
        }
        if (type == MemorySize.class) {
            return "a memory size";
        }
        if (type.isEnum()) {
            return "one of " + enumValues(type);
        }
        String message = parseError.getMessage();
        return "a valid value ("
                + (message == null ? parseError.getClass().getSimpleName() : message)
                + ")";
    }

    /** A concrete example of a valid value for the option's type. */
    public static String example(ConfigOption<?> option) {
        Class<?> type = typeOf(option);
        if (type == Duration.class) {
            return "a number with a unit, e.g. 500 ms, 5 s, 2 min, 1 h";
        }
        if (type == Boolean.class) {
            return "true or false";
        }
        if (type == Integer.class || type == Long.class) {
            return "a whole number, e.g. " + (option.hasDefaultValue() ? option.defaultValue() : 4);
        }
        if (type == MemorySize.class) {
            return "a size with a unit, e.g. 64 kb, 1 mb";
        }
        if (type.isEnum()) {
            return "one of " + enumValues(type);
        }
        return "a value as described by --help";
    }

    private static String enumValues(Class<?> enumType) {
        return Arrays.stream(enumType.getEnumConstants())
                .map(constant -> text((Enum<?>) constant))
                .collect(Collectors.joining(", "));
    }
}
