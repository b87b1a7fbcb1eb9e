package io.kfp.common.preflight;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.OptionGroup;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/** The checks a job runs against Kafka before it is submitted. */
public final class PreflightOptions implements OptionGroup {

    public static final PreflightOptions GROUP = new PreflightOptions();

    public static final ConfigOption<Boolean> SKIP =
            key("preflight.skip")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Submit without checking the broker first (reachable, topics exist,"
                                    + " transaction timeout accepted). For clusters whose ACLs"
                                    + " deny describing topics or broker configs; a warning is"
                                    + " logged.");

    public static final ConfigOption<Duration> TIMEOUT =
            key("preflight.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "How long the checks may take in total before the broker is reported unreachable.");

    public static final ConfigOption<String> PRINT_ACLS =
            key("preflight.print-acls")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Print the kafka-acls.sh lines that grant this principal (e.g. User:relay) what the job needs - its topics, consumer group and transactional id prefix - then exit without running the job.");

    private PreflightOptions() {}

    @Override
    public String title() {
        return "Preflight";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(SKIP, TIMEOUT, PRINT_ACLS);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        Duration timeout = config.get(TIMEOUT);
        if (timeout.compareTo(Duration.ofMillis(100)) < 0
                || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
            problems.add(TIMEOUT.key(), "must be between 100 ms and 5 min.", "use e.g. 10 s.");
        }
        config.getOptional(PRINT_ACLS)
                .filter(p -> !p.matches("[A-Za-z]+:\\S+"))
                .ifPresent(
                        p ->
                                problems.add(
                                        PRINT_ACLS.key(),
                                        "is not a Kafka principal (TYPE:NAME).",
                                        "use e.g. User:relay."));
    }
}
