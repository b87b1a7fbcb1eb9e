package io.kfp.dedup;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.OptionGroup;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/** Which records count as repeats, for how long, and what happens to a record without an id. */
public final class DedupOptions implements OptionGroup {

    public static final DedupOptions GROUP = new DedupOptions();

    /** Where a record's id comes from. */
    public enum IdFrom {
        /** The record's key, byte for byte. */
        KEY,
        /** The first group of dedup.id-pattern matched in the value (read as UTF-8). */
        VALUE
    }

    /** A record without an id: no key, or a value the pattern does not match. */
    public enum MissingId {
        /** Write it, counted (recordsWithoutId): nothing is lost. */
        PASS,
        /** Leave it out, counted (recordsWithoutId). */
        DROP
    }

    public static final ConfigOption<IdFrom> ID_FROM =
            key("dedup.id-from")
                    .enumType(IdFrom.class)
                    .defaultValue(IdFrom.KEY)
                    .withDescription(
                            "What identifies a record: key (its key's bytes) or value (the first"
                                    + " group of dedup.id-pattern in its value).");

    public static final ConfigOption<String> ID_PATTERN =
            key("dedup.id-pattern")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "With dedup.id-from=value: a Java regular expression whose first group"
                                    + " is the id, e.g. \"order_id\":\"([^\"]+)\" or ^([^,]+),.");

    public static final ConfigOption<Duration> RETENTION =
            key("dedup.retention")
                    .durationType()
                    .defaultValue(Duration.ofHours(1))
                    .withDescription(
                            "How long an id is remembered after its first record: a record with"
                                    + " that id within this time is dropped, a later one passes.");

    public static final ConfigOption<MissingId> MISSING_ID =
            key("dedup.missing-id")
                    .enumType(MissingId.class)
                    .defaultValue(MissingId.PASS)
                    .withDescription(
                            "A record without an id (no key, or a value the pattern does not"
                                    + " match). pass: write it; drop: leave it out. Counted in"
                                    + " recordsWithoutId either way.");

    private DedupOptions() {}

    @Override
    public String title() {
        return "Dedup";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(ID_FROM, ID_PATTERN, RETENTION, MISSING_ID);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        if (config.get(RETENTION).compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add(RETENTION.key(), "must be at least 1 s.", "use e.g. 1 h.");
        }
        String pattern = config.getOptional(ID_PATTERN).orElse(null);
        if (config.get(ID_FROM) == IdFrom.VALUE) {
            if (pattern == null || pattern.isEmpty()) {
                problems.addMissing(
                        ID_PATTERN.key(),
                        "dedup.id-from=value needs the pattern that finds the id in the value.",
                        "set e.g. --dedup.id-pattern '^([^,]+),' (the first group is the id).");
                return;
            }
            try {
                if (Pattern.compile(pattern).matcher("").groupCount() < 1) {
                    problems.add(
                            ID_PATTERN.key(),
                            "has no group: the first group is the id.",
                            "put the id's part in parentheses, e.g. ^([^,]+),.");
                }
            } catch (PatternSyntaxException e) {
                problems.add(
                        ID_PATTERN.key(),
                        "is no regular expression: " + e.getDescription() + ".",
                        "fix it, e.g. ^([^,]+),.");
            }
        } else if (pattern != null) {
            problems.add(
                    ID_PATTERN.key(),
                    "is set, but dedup.id-from is key: it would be ignored.",
                    "set dedup.id-from=value, or remove dedup.id-pattern.");
        }
    }
}
