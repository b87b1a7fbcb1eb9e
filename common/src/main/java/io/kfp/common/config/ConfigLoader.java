package io.kfp.common.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Turns a job's command line, environment and optional config file into one {@link RawConfig}.
 *
 * <p>Precedence, lowest first: option defaults (applied later, by type) &lt; the job's own defaults
 * &lt; the file given with {@code --config FILE} (YAML, or {@code .properties}) &lt; environment
 * variables &lt; {@code --key value} on the command line.
 *
 * <p>Environment variables are the key upper-cased with every {@code .} and {@code -} turned into
 * {@code _}, prefixed with {@value #ENV_PREFIX}: {@code checkpoint.interval} is {@code
 * KFP_CHECKPOINT_INTERVAL}. Free-form keys under a pass-through prefix map the rest of the name
 * back to dots: {@code KFP_KAFKA_PROPERTIES_SASL_MECHANISM} is {@code
 * kafka.properties.sasl.mechanism}.
 */
public final class ConfigLoader {

    public static final String ENV_PREFIX = "KFP_";
    public static final String CONFIG_FILE_FLAG = "config";

    private ConfigLoader() {}

    /**
     * What the command line asked for. {@code warnings}: what was ignored and why (an unknown
     * {@code KFP_*} variable), for the job to print before it starts.
     */
    public record Loaded(
            RawConfig raw,
            boolean helpRequested,
            List<ConfigProblem> syntaxProblems,
            List<String> warnings) {

        /**
         * Whether the config file could not be read: every other problem would follow from that.
         */
        public boolean fileUnreadable() {
            return syntaxProblems.stream()
                    .anyMatch(p -> p.key().equals("--" + CONFIG_FILE_FLAG) && p.origin() == null);
        }
    }

    /**
     * Loads every layer. Syntax problems (a dangling {@code --key}, an unreadable file) are
     * returned, not thrown, so they are reported together with validation problems.
     */
    public static Loaded load(
            String[] args,
            Map<String, String> environment,
            Map<String, String> jobDefaults,
            Collection<OptionGroup> groups) {
        Layers raw = new Layers(groups);
        List<ConfigProblem> problems = new ArrayList<>();
        jobDefaults.forEach((k, v) -> raw.put(k, v, "job default"));

        CommandLine commandLine = CommandLine.parse(args, problems);
        String configFile = commandLine.configFile;
        if (configFile == null && environment.containsKey(ENV_PREFIX + "CONFIG")) {
            configFile = environment.get(ENV_PREFIX + "CONFIG");
        }
        if (configFile != null) {
            readFile(Path.of(configFile), raw, problems);
        }
        List<String> warnings = new ArrayList<>();
        readEnvironment(environment, groups, raw, warnings);
        commandLine.values.forEach((k, v) -> raw.put(k, v, "command line"));
        raw.deprecatedUsed.forEach(
                (old, own) ->
                        warnings.add(
                                old
                                        + " is the old name of "
                                        + own
                                        + ": it is still read, but rename it where it is set."));
        return new Loaded(raw.raw, commandLine.help, problems, warnings);
    }

    /**
     * Adds layers to a {@link RawConfig}, storing a value given under one of Flink's keys (a
     * fallback key) under our option's own key, so precedence is decided by layer, not by which of
     * the two names was used.
     */
    private static final class Layers {
        final RawConfig raw = new RawConfig();
        final Map<String, String> ownKeyOf = new LinkedHashMap<>();
        final Set<String> deprecated = new HashSet<>();

        /** Deprecated keys given, each with the key that replaces it. */
        final Map<String, String> deprecatedUsed = new LinkedHashMap<>();

        Layers(Collection<OptionGroup> groups) {
            for (OptionGroup group : groups) {
                for (ConfigOption<?> option : group.options()) {
                    for (FallbackKey fallback : option.fallbackKeys()) {
                        ownKeyOf.putIfAbsent(fallback.getKey(), option.key());
                        if (fallback.isDeprecated()) {
                            deprecated.add(fallback.getKey());
                        }
                    }
                }
            }
        }

        void put(String key, String value, String origin) {
            if (deprecated.contains(key)) {
                deprecatedUsed.put(key, ownKeyOf.get(key));
            }
            raw.put(ownKeyOf.getOrDefault(key, key), value, origin, key);
        }
    }

    private static void readFile(Path file, Layers raw, List<ConfigProblem> problems) {
        String origin = "file " + file;
        if (!Files.isRegularFile(file)) {
            problems.add(
                    new ConfigProblem(
                            "--" + CONFIG_FILE_FLAG,
                            file.toString(),
                            null,
                            "the file does not exist or is not a regular file.",
                            "pass the path of a YAML (.yaml/.yml) or .properties file."));
            return;
        }
        try {
            Map<String, String> flat = new LinkedHashMap<>();
            String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
            if (name.endsWith(".properties")) {
                Properties properties = new Properties();
                try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    properties.load(reader);
                }
                properties.stringPropertyNames().stream()
                        .sorted()
                        .forEach(k -> flat.put(k, properties.getProperty(k).trim()));
            } else {
                flatten("", loadYaml(file), flat);
            }
            flat.forEach((k, v) -> raw.put(k, v, origin));
        } catch (IOException e) {
            problems.add(
                    new ConfigProblem(
                            "--" + CONFIG_FILE_FLAG,
                            file.toString(),
                            null,
                            "the file cannot be read: " + e.getMessage(),
                            "check the path and its permissions."));
        } catch (YamlEngineException | ClassCastException e) {
            problems.add(
                    new ConfigProblem(
                            "--" + CONFIG_FILE_FLAG,
                            file.toString(),
                            null,
                            "the file is not valid YAML" + yamlProblem(e),
                            "write one 'key: value' per line (nested maps are joined with"
                                    + " dots), or use a .properties file."));
        }
    }

    /**
     * The file as YAML with the parser Flink's own {@code YamlParserUtils} uses (snakeyaml-engine,
     * core schema). Not through that class: it logs every parse error with its stack trace.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> loadYaml(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Object top =
                    new Load(LoadSettings.builder().setSchema(new CoreSchema()).build())
                            .loadFromReader(reader);
            if (top != null && !(top instanceof Map)) {
                throw new ClassCastException(
                        "the top level is a "
                                + top.getClass().getSimpleName()
                                + ", not 'key: value' lines");
            }
            return (Map<String, Object>) top;
        }
    }

    /**
     * Where the parser stopped and what it expected (": line 3, column 2: expected ..."). Only the
     * problem and its position: the parser's own message quotes the file, which may hold a secret.
     */
    static String yamlProblem(Exception e) {
        if (e instanceof MarkedYamlEngineException marked) {
            String where =
                    marked.getProblemMark()
                            .map(
                                    m ->
                                            ": line "
                                                    + (m.getLine() + 1)
                                                    + ", column "
                                                    + (m.getColumn() + 1))
                            .orElse("");
            return where + ": " + marked.getProblem();
        }
        return ": " + firstLine(e.getMessage());
    }

    /** Nested YAML maps become dotted keys; lists become comma-separated values. */
    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Map<String, Object> yaml, Map<String, String> out) {
        if (yaml == null) {
            return;
        }
        yaml.forEach(
                (k, v) -> {
                    String key = prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k;
                    if (v instanceof Map) {
                        flatten(key, (Map<String, Object>) v, out);
                    } else if (v instanceof List<?> list) {
                        List<String> items = new ArrayList<>();
                        list.forEach(item -> items.add(String.valueOf(item)));
                        out.put(key, String.join(",", items));
                    } else {
                        out.put(key, v == null ? "" : String.valueOf(v));
                    }
                });
    }

    private static void readEnvironment(
            Map<String, String> environment,
            Collection<OptionGroup> groups,
            Layers raw,
            List<String> warnings) {
        Map<String, String> envNameToKey = new LinkedHashMap<>();
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                envNameToKey.put(envName(option.key()), option.key());
                for (FallbackKey fallback : option.fallbackKeys()) {
                    envNameToKey.putIfAbsent(envName(fallback.getKey()), fallback.getKey());
                }
            }
        }
        List<String> prefixes = new ArrayList<>();
        groups.forEach(g -> g.passThroughPrefixes().forEach(p -> prefixes.add(p.prefix())));

        environment.entrySet().stream()
                .filter(e -> e.getKey().startsWith(ENV_PREFIX))
                .filter(e -> !e.getKey().equals(ENV_PREFIX + "CONFIG"))
                .sorted(Map.Entry.comparingByKey())
                .forEach(
                        e -> {
                            String origin = "environment " + e.getKey();
                            String key = envNameToKey.get(e.getKey());
                            if (key == null) {
                                key = passThroughKey(e.getKey(), prefixes);
                            }
                            if (key == null) {
                                // The KFP_ namespace is shared (kfp's own KFP_HOME, KFP_RUN_DIR,
                                // a team's variables): an unknown one is ignored, with a warning
                                // that names it, never a reason to refuse to start.
                                warnings.add(
                                        "environment variable "
                                                + e.getKey()
                                                + " is not an option of this job; ignored."
                                                + DidYouMean.suggest(
                                                                e.getKey(), envNameToKey.keySet())
                                                        .map(k -> " Did you mean " + k + "?")
                                                        .orElse(""));
                                return;
                            }
                            raw.put(key, e.getValue(), origin);
                        });
    }

    private static String passThroughKey(String envName, List<String> prefixes) {
        for (String prefix : prefixes) {
            String envPrefix = envName(prefix.substring(0, prefix.length() - 1)) + "_";
            if (envName.startsWith(envPrefix) && envName.length() > envPrefix.length()) {
                return prefix
                        + envName.substring(envPrefix.length())
                                .toLowerCase(Locale.ROOT)
                                .replace('_', '.');
            }
        }
        return null;
    }

    /**
     * A stray argument as it may be shown: {@code key=value} with the value hidden if the key is a
     * secret, and a bare word hidden if the word before it named a secret.
     */
    static String strayForDisplay(String arg, String previous) {
        if (previous != null && SecretRedaction.isSecret(previous)
                || SecretRedaction.looksSecret(arg)) {
            return SecretRedaction.REDACTED;
        }
        int equals = arg.indexOf('=');
        if (equals > 0) {
            String key = arg.substring(0, equals);
            return key
                    + "="
                    + SecretRedaction.redact(
                            key.replaceFirst("^-+", ""), arg.substring(equals + 1));
        }
        return arg;
    }

    /** The environment variable that sets {@code key}. */
    public static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no details)";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /**
     * {@code --key value}, {@code --key=value}, {@code --flag}, {@code --help}, {@code --config}.
     */
    private static final class CommandLine {
        final Map<String, String> values = new LinkedHashMap<>();
        String configFile;
        boolean help;

        static CommandLine parse(String[] args, List<ConfigProblem> problems) {
            CommandLine cl = new CommandLine();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--help") || arg.equals("-h") || arg.equals("help")) {
                    cl.help = true;
                    continue;
                }
                if (!arg.startsWith("--") || arg.length() == 2) {
                    problems.add(
                            new ConfigProblem(
                                    strayForDisplay(arg, i == 0 ? null : args[i - 1]),
                                    null,
                                    "command line",
                                    "unexpected argument.",
                                    "options are written --key value or --key=value;"
                                            + " run with --help to list them."));
                    continue;
                }
                String key;
                String value;
                int equals = arg.indexOf('=');
                if (equals > 0) {
                    key = arg.substring(2, equals);
                    value = arg.substring(equals + 1);
                } else {
                    key = arg.substring(2);
                    // A secret is never a bare switch: its value may start with "--" and must not
                    // be
                    // read as the next option, which would be printed back as unknown.
                    boolean nextIsValue =
                            i + 1 < args.length
                                    && (!args[i + 1].startsWith("--")
                                            || SecretRedaction.isSecret(key));
                    // A bare --flag means true, so boolean switches read naturally.
                    value = nextIsValue ? args[++i] : "true";
                }
                if (key.equals(CONFIG_FILE_FLAG)) {
                    if (cl.configFile != null) {
                        problems.add(
                                new ConfigProblem(
                                        "--" + CONFIG_FILE_FLAG,
                                        value,
                                        "command line",
                                        "a second config file (the first is "
                                                + cl.configFile
                                                + ").",
                                        "give one --config; put shared settings in it, or override"
                                                + " single ones with --key value."));
                    } else if (value.equals("true") && equals < 0) {
                        problems.add(
                                new ConfigProblem(
                                        "--" + CONFIG_FILE_FLAG,
                                        null,
                                        "command line",
                                        "no file given.",
                                        "write --config path/to/job.yaml."));
                    } else {
                        cl.configFile = value;
                    }
                } else {
                    cl.values.put(key, value);
                }
            }
            return cl;
        }
    }
}
