package io.kfp.common.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MemorySize;

/**
 * Checks raw settings against the declared options of a job's groups and, if everything is
 * valid, returns them as a typed Flink {@link Configuration}. Reports every problem at once.
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
        Configuration config = Configuration.fromMap(raw.values());

        reportUnknownKeys(raw, groups, problems);
        boolean allParsed = true;
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                allParsed &= parses(config, option, raw, problems);
            }
        }
        if (allParsed) {
            // Cross-option checks assume typed values; run them only when all of them parsed.
            groups.forEach(g -> g.validate(config, problems));
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
            String fix =
                    DidYouMean.suggest(key, declared)
                            .map(s -> "did you mean '" + s + "'?")
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
            String key = keyGiven(option, raw);
            problems.add(key, "not " + expected(option, e) + ".", "write " + example(option) + ".");
            return false;
        }
    }

    /** The key the user actually wrote: the option's own key or one of its fallbacks. */
    private static String keyGiven(ConfigOption<?> option, RawConfig raw) {
        if (raw.contains(option.key())) {
            return option.key();
        }
        for (FallbackKey fallback : option.fallbackKeys()) {
            if (raw.contains(fallback.getKey())) {
                return fallback.getKey();
            }
        }
        return option.key();
    }

    /** "a duration", "one of [none, at-least-once, exactly-once]", ... */
    static String expected(ConfigOption<?> option, RuntimeException parseError) {
        Object sample = option.hasDefaultValue() ? option.defaultValue() : null;
        if (sample instanceof Duration) {
            return "a duration";
        }
        if (sample instanceof Boolean) {
            return "true or false";
        }
        if (sample instanceof Integer || sample instanceof Long) {
            return "a whole number";
        }
        if (sample instanceof MemorySize) {
            return "a memory size";
        }
        if (sample instanceof Enum<?> e) {
            return "one of " + enumValues(e);
        }
        String message = parseError.getMessage();
        return "a valid value (" + (message == null ? parseError.getClass().getSimpleName() : message) + ")";
    }

    /** A concrete example of a valid value for the option's type. */
    public static String example(ConfigOption<?> option) {
        Object sample = option.hasDefaultValue() ? option.defaultValue() : null;
        if (sample instanceof Duration) {
            return "a number with a unit, e.g. 500 ms, 5 s, 2 min, 1 h";
        }
        if (sample instanceof Boolean) {
            return "true or false";
        }
        if (sample instanceof Integer || sample instanceof Long) {
            return "a whole number, e.g. " + sample;
        }
        if (sample instanceof MemorySize) {
            return "a size with a unit, e.g. 64 kb, 1 mb";
        }
        if (sample instanceof Enum<?> e) {
            return "one of " + enumValues(e);
        }
        return "a value as described by --help";
    }

    private static String enumValues(Enum<?> sample) {
        return Arrays.stream(sample.getDeclaringClass().getEnumConstants())
                .map(Object::toString)
                .collect(Collectors.joining(", "));
    }
}
