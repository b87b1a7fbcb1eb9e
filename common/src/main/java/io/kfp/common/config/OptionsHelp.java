package io.kfp.common.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.util.TimeUtils;

/**
 * Generates {@code --help} text from the option declarations, so the list can never drift from what
 * the job accepts.
 */
public final class OptionsHelp {

    private static final int WIDTH = 96;

    private OptionsHelp() {}

    public static String render(
            String command,
            String description,
            List<OptionGroup> groups,
            Map<String, String> jobDefaults) {
        StringBuilder out = new StringBuilder();
        out.append(command).append(": ").append(description).append("\n\n");
        out.append("Usage: ").append(command).append(" [--config FILE] [--key value ...]\n\n");
        out.append(
                wrap(
                        "Settings are read from, lowest precedence first: the defaults below; a"
                                + " YAML or .properties file given with --config FILE (or"
                                + " KFP_CONFIG); environment variables (KFP_ and the key in"
                                + " capitals with '.' and '-' as '_', e.g."
                                + " KFP_CHECKPOINT_INTERVAL); the command line (--key value or"
                                + " --key=value; a bare --flag means true).",
                        ""));
        out.append('\n');
        for (OptionGroup group : groups) {
            out.append('\n').append(group.title()).append('\n');
            for (ConfigOption<?> option : group.options()) {
                out.append("  --").append(option.key());
                String shownDefault = defaultText(option, jobDefaults);
                out.append("  (default: ").append(shownDefault).append(")\n");
                List<String> fallbacks = new ArrayList<>();
                for (FallbackKey fallback : option.fallbackKeys()) {
                    fallbacks.add(fallback.getKey());
                }
                String text = PlainTextFormatter.render(option.description());
                if (!fallbacks.isEmpty()) {
                    text += " Also accepted as: " + String.join(", ", fallbacks) + ".";
                }
                out.append(wrap(text, "      "));
            }
            for (OptionGroup.PassThroughPrefix prefix : group.passThroughPrefixes()) {
                out.append("  --").append(prefix.prefix()).append("<name>\n");
                out.append(wrap(prefix.description(), "      "));
            }
        }
        return out.toString();
    }

    /** The default as a user would type it; job defaults win over the option's own. */
    public static String defaultText(ConfigOption<?> option, Map<String, String> jobDefaults) {
        if (jobDefaults.containsKey(option.key())) {
            return jobDefaults.get(option.key());
        }
        if (!option.hasDefaultValue()) {
            return "none";
        }
        Object value = option.defaultValue();
        if (value instanceof Duration d) {
            return TimeUtils.formatWithHighestUnit(d);
        }
        if (value instanceof Enum<?> e) {
            return ConfigValidator.text(e);
        }
        return String.valueOf(value);
    }

    /**
     * The same options as a Markdown table per group, for READMEs. Generated, never edited by hand:
     * each module has a test that fails when its committed table differs.
     */
    public static String markdown(List<OptionGroup> groups, Map<String, String> jobDefaults) {
        StringBuilder out = new StringBuilder();
        for (OptionGroup group : groups) {
            out.append("#### ").append(group.title()).append("\n\n");
            out.append("| option | default | description |\n|---|---|---|\n");
            for (ConfigOption<?> option : group.options()) {
                String text = PlainTextFormatter.render(option.description()).replace("\n", " ");
                List<String> fallbacks = new ArrayList<>();
                for (FallbackKey fallback : option.fallbackKeys()) {
                    fallbacks.add("`" + fallback.getKey() + "`");
                }
                if (!fallbacks.isEmpty()) {
                    text += " Also accepted as: " + String.join(", ", fallbacks) + ".";
                }
                out.append("| `")
                        .append(option.key())
                        .append("` | `")
                        .append(defaultText(option, jobDefaults))
                        .append("` | ")
                        .append(text.replace("|", "\\|"))
                        .append(" |\n");
            }
            for (OptionGroup.PassThroughPrefix prefix : group.passThroughPrefixes()) {
                out.append("| `")
                        .append(prefix.prefix())
                        .append("<name>` | | ")
                        .append(prefix.description().replace("|", "\\|"))
                        .append(" |\n");
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static String wrap(String text, String indent) {
        StringBuilder out = new StringBuilder();
        for (String paragraph : text.split("\n")) {
            StringBuilder line = new StringBuilder(indent);
            for (String word : paragraph.split(" ")) {
                if (line.length() > indent.length() && line.length() + 1 + word.length() > WIDTH) {
                    out.append(line).append('\n');
                    line = new StringBuilder(indent);
                }
                if (line.length() > indent.length()) {
                    line.append(' ');
                }
                line.append(word);
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }
}
