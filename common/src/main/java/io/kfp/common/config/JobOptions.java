package io.kfp.common.config;

import static org.apache.flink.configuration.ConfigOptions.key;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/** Identity and size of a job: its name, which instance it is, its parallelism. */
public final class JobOptions implements OptionGroup {

    public static final JobOptions GROUP = new JobOptions();

    /** Names are used inside Kafka transactional ids and group ids: keep them to safe chars. */
    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._-]+");

    public static final ConfigOption<String> NAME =
            key("job.name")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Name of the job on the Flink cluster. Also the base of the default"
                                    + " Kafka transactional id prefix and consumer group id, so"
                                    + " keep it stable across restarts and upgrades.");

    public static final ConfigOption<String> INSTANCE_ID =
            key("job.instance-id")
                    .stringType()
                    .defaultValue("default")
                    .withDescription(
                            "Distinguishes several deployments of the same job on one Kafka"
                                    + " cluster (e.g. 'eu', 'us', 'staging'). Part of the default"
                                    + " transactional id prefix and group id: a job whose group or"
                                    + " prefix a running one holds is refused at its start.");

    public static final ConfigOption<Integer> PARALLELISM =
            key("job.parallelism")
                    .intType()
                    .noDefaultValue()
                    .withFallbackKeys("parallelism.default")
                    .withDescription(
                            "Parallelism of every operator. Unset: the cluster's"
                                    + " parallelism.default.");

    private JobOptions() {}

    @Override
    public String title() {
        return "Job";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(NAME, INSTANCE_ID, PARALLELISM);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        String name = config.get(NAME);
        if (name == null || name.isBlank()) {
            problems.addMissing(NAME.key(), "no job name set.", "set --job.name, e.g. relay-job.");
        } else if (!isSafeName(name)) {
            problems.add(
                    NAME.key(),
                    "only letters, digits, '.', '_' and '-' are allowed (it becomes part of Kafka"
                            + " ids).",
                    "choose a name like relay-job.");
        }
        if (!isSafeName(config.get(INSTANCE_ID))) {
            problems.add(
                    INSTANCE_ID.key(),
                    "only letters, digits, '.', '_' and '-' are allowed (it becomes part of Kafka"
                            + " ids).",
                    "choose an id like eu-1.");
        }
        config.getOptional(PARALLELISM)
                .filter(p -> p < 1 || p > 32768)
                .ifPresent(
                        p ->
                                problems.add(
                                        PARALLELISM.key(),
                                        "must be between 1 and 32768.",
                                        "set a positive parallelism, or leave it unset for the"
                                                + " cluster default."));
    }

    /**
     * Whether {@code name} is made only of letters, digits, '.', '_' and '-', safe inside a Kafka
     * id.
     */
    public static boolean isSafeName(String name) {
        return SAFE_NAME.matcher(name).matches();
    }

    /** {@code kfp.<name>.<instance-id>}: the base of default transactional ids and group ids. */
    public static String qualifiedName(ReadableConfig config) {
        return "kfp." + config.get(NAME) + "." + config.get(INSTANCE_ID);
    }
}
