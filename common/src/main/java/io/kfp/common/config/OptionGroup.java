package io.kfp.common.config;

import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * A concern's settings (checkpointing, Kafka source, ...): the typed options it declares, how they
 * are checked together, and any free-form key prefixes it accepts.
 *
 * <p>Each job lists the groups it uses; help text, unknown-key detection and validation are all
 * derived from that list, so an option declared here is documented and checked everywhere.
 */
public interface OptionGroup {

    /** Heading shown in {@code --help}. */
    String title();

    /** Every option of this group, in the order {@code --help} shows them. */
    List<ConfigOption<?>> options();

    /**
     * Key prefixes passed through unchecked (for example {@code kafka.properties.}), each with a
     * one-line description for {@code --help}.
     */
    default List<PassThroughPrefix> passThroughPrefixes() {
        return List.of();
    }

    /**
     * Cross-option checks. Called even when some option's value did not parse, so that every other
     * problem is reported in the same run; reading such an option throws {@link
     * IllegalArgumentException}, which skips the rest of this group's checks.
     */
    default void validate(ReadableConfig config, ConfigProblems problems) {}

    /** A prefix whose keys are not declared one by one, and what they are for. */
    record PassThroughPrefix(String prefix, String description) {}
}
