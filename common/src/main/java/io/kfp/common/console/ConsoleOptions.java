package io.kfp.common.console;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.Escapes;
import io.kfp.common.config.OptionGroup;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/** What the sink job prints for each record, like Kafka's console consumer. */
public final class ConsoleOptions implements OptionGroup {

    public static final ConsoleOptions GROUP = new ConsoleOptions();

    public static final ConfigOption<Boolean> PRINT_TIMESTAMP =
            key("console.print-timestamp")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Print the record's timestamp first, as CreateTime:<epoch ms> (or LogAppendTime:).");

    public static final ConfigOption<Boolean> PRINT_PARTITION =
            key("console.print-partition")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Print Partition:<n>.");

    public static final ConfigOption<Boolean> PRINT_OFFSET =
            key("console.print-offset")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Print Offset:<n>.");

    public static final ConfigOption<Boolean> PRINT_HEADERS =
            key("console.print-headers")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Print the headers as name:value,name:value (NO_HEADERS when there are none).");

    public static final ConfigOption<Boolean> PRINT_KEY =
            key("console.print-key")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Print the key before the value.");

    public static final ConfigOption<String> SEPARATOR =
            key("console.separator")
                    .stringType()
                    .defaultValue("\\t")
                    .withDescription(
                            "Between the printed fields. Escapes \\t, \\n and \\\\ are understood, so"
                                    + " the default is a tab.");

    public static final ConfigOption<String> NULL_LITERAL =
            key("console.null-literal")
                    .stringType()
                    .defaultValue("null")
                    .withDescription("Printed for a missing key or value (a tombstone).");

    public static final ConfigOption<Duration> FLUSH_INTERVAL =
            key("console.flush-interval")
                    .durationType()
                    .defaultValue(Duration.ofMillis(200))
                    .withDescription(
                            "Longest time a printed line waits in the buffer. Output is also flushed"
                                    + " at every checkpoint and when the buffer reaches 64 KiB.");

    private ConsoleOptions() {}

    @Override
    public String title() {
        return "Console output";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(
                PRINT_TIMESTAMP,
                PRINT_PARTITION,
                PRINT_OFFSET,
                PRINT_HEADERS,
                PRINT_KEY,
                SEPARATOR,
                NULL_LITERAL,
                FLUSH_INTERVAL);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        Duration flush = config.get(FLUSH_INTERVAL);
        if (flush.compareTo(Duration.ofMillis(1)) < 0
                || flush.compareTo(Duration.ofMinutes(1)) > 0) {
            problems.add(
                    FLUSH_INTERVAL.key(), "must be between 1 ms and 1 min.", "use e.g. 200 ms.");
        }
        String separator = Escapes.unescape(config.get(SEPARATOR));
        if (separator.contains("\n")) {
            problems.add(
                    SEPARATOR.key(),
                    "a separator with a line break would split one record over several lines.",
                    "use e.g. \\t, ' | ' or ','.");
        }
    }
}
