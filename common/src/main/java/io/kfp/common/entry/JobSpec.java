package io.kfp.common.entry;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.checkpoint.RestartOptions;
import io.kfp.common.checkpoint.StateOptions;
import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.JobOptions;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.preflight.JobPreflight;
import io.kfp.common.preflight.PreflightOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * A job, declared once in its own module: its command name, what it does, the team that owns it,
 * the option groups it accepts, its own defaults, what it reads and writes, and its workflow for a
 * valid configuration. Everything else reads it: the entry point, kfp (through the job's {@link
 * JobProvider}), the ACL printer, the docs.
 *
 * <p>What it reads and writes follows from its groups - {@link SourceOptions}: it reads Kafka;
 * {@link KafkaSinkOptions}: it writes Kafka with {@code sink.delivery-guarantee} - plus what the
 * builder declares besides ({@link Builder#readsFrom}, {@link Builder#prints}). How the workflow
 * runs - until it ends, or submitted without waiting - is the caller's choice: {@link
 * JobEntryPoint} for a job's {@code main}, the embedded runner, the benchmarks.
 *
 * @param otherInput what it reads besides Kafka, given its settings; null when it reads only Kafka
 * @param printGuarantee null unless it prints its records on the TaskManagers' standard output;
 *     then how often each record is printed across failures
 * @param copies whether, given its settings, it writes each record it reads unchanged (key, value,
 *     headers, timestamp) - what {@code kfp verify JOB} checks
 */
public record JobSpec(
        String command,
        String description,
        String owner,
        List<OptionGroup> groups,
        Map<String, String> defaults,
        List<JobPreflight> preflights,
        Function<ReadableConfig, List<String>> extraOutputTopics,
        Function<ReadableConfig, String> otherInput,
        DeliveryGuarantee printGuarantee,
        Predicate<ReadableConfig> copies,
        Function<ReadableConfig, ? extends Workflow> workflow) {

    /** Owners as CODEOWNERS takes them: a team ({@code @org/team}), a user, or a plain name. */
    private static final Pattern OWNER = Pattern.compile("@?[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?");

    public JobSpec {
        if (owner == null || !OWNER.matcher(owner).matches()) {
            throw new IllegalArgumentException(
                    "job "
                            + command
                            + ": owner "
                            + (owner == null ? "not set" : "'" + owner + "' is not a team name")
                            + ": call .owner(TEAM) on its JobSpec builder, e.g. .owner(\"payments\")"
                            + " or .owner(\"@my-org/payments\").");
        }
        groups = List.copyOf(groups);
        defaults = Map.copyOf(defaults);
        preflights = List.copyOf(preflights);
    }

    /** Whether it reads Kafka topics ({@code source.*}). */
    public boolean readsKafka() {
        return groups.contains(SourceOptions.GROUP);
    }

    /** Whether it writes a Kafka topic ({@code sink.*}). */
    public boolean writesKafka() {
        return groups.contains(KafkaSinkOptions.GROUP);
    }

    /** What it reads and writes under a validated {@code config}. */
    public JobEndpoints endpoints(ReadableConfig config) {
        return JobEndpoints.of(this, config);
    }

    /**
     * The job's configuration from command-line arguments alone (defaults, the job's defaults,
     * {@code --config FILE}, the arguments; no environment), validated as its main would.
     *
     * @throws io.kfp.common.config.InvalidConfigurationException listing every problem
     */
    public Configuration configuration(String... args) {
        return configuration(Map.of(), args);
    }

    /**
     * As {@link #configuration(String...)} with {@code KFP_*} variables from {@code environment},
     * as the job's main reads them.
     */
    public Configuration configuration(Map<String, String> environment, String... args) {
        ConfigLoader.Loaded loaded = ConfigLoader.load(args, environment, defaults, groups);
        return ConfigValidator.validate(loaded.raw(), groups, loaded.syntaxProblems());
    }

    /** The job's graph for a validated {@code config}. */
    public Workflow workflow(ReadableConfig config) {
        return workflow.apply(config);
    }

    /**
     * Starts a spec with the groups every job has: job, checkpointing, state, restarts, Kafka,
     * preflight.
     */
    public static Builder builder(String command, String description) {
        return new Builder(command, description);
    }

    /** Fluent construction; job-specific groups come after the standard ones. */
    public static final class Builder {
        private final String command;
        private final String description;
        private final List<OptionGroup> groups =
                new ArrayList<>(
                        List.of(
                                JobOptions.GROUP,
                                CheckpointOptions.GROUP,
                                StateOptions.GROUP,
                                RestartOptions.GROUP,
                                KafkaClientOptions.GROUP,
                                PreflightOptions.GROUP));
        private final Map<String, String> defaults = new LinkedHashMap<>();
        private final List<JobPreflight> preflights = new ArrayList<>();
        private Function<ReadableConfig, List<String>> extraOutputTopics = config -> List.of();
        private Function<ReadableConfig, String> otherInput;
        private DeliveryGuarantee printGuarantee;
        private Predicate<ReadableConfig> copies = config -> false;
        private String owner;

        private Builder(String command, String description) {
            this.command = command;
            this.description = description;
            defaults.put(JobOptions.NAME.key(), command);
        }

        /**
         * The team that owns the job: kfp lists it, CODEOWNERS names it. A team ({@code
         * @org/team}), a user or a plain name.
         */
        public Builder owner(String team) {
            owner = team;
            return this;
        }

        public Builder group(OptionGroup group) {
            groups.add(group);
            return this;
        }

        /** This job's default for {@code option}, shown by --help in place of the option's own. */
        public Builder defaultValue(ConfigOption<?> option, String value) {
            defaults.put(option.key(), value);
            return this;
        }

        /** A check against the cluster run before submission, after the common ones. */
        public Builder preflight(JobPreflight preflight) {
            preflights.add(preflight);
            return this;
        }

        /**
         * Topics the job writes besides {@code sink.topic}, given its settings (e.g. the relay's
         * late-record topic).
         */
        public Builder extraOutputTopics(Function<ReadableConfig, List<String>> topics) {
            extraOutputTopics = topics;
            return this;
        }

        /**
         * It reads something besides Kafka: {@code describe} says what, given its settings (e.g.
         * the sockets of socket.endpoints).
         */
        public Builder readsFrom(Function<ReadableConfig, String> describe) {
            otherInput = describe;
            return this;
        }

        /**
         * It prints its records on the TaskManagers' standard output, each at most or at least once
         * across failures as {@code guarantee} says: {@code kfp logs} shows them.
         */
        public Builder prints(DeliveryGuarantee guarantee) {
            printGuarantee = guarantee;
            return this;
        }

        /**
         * It writes each record it reads unchanged - key, value, headers and timestamp - when
         * {@code when} holds for its settings: {@code kfp verify JOB} then checks its output holds
         * each input record exactly once.
         */
        public Builder copies(Predicate<ReadableConfig> when) {
            copies = when;
            return this;
        }

        /**
         * Ends the spec: the job's graph for a validated configuration (e.g. {@code
         * RelayJob::fromConfig}).
         */
        public JobSpec workflow(Function<ReadableConfig, ? extends Workflow> workflow) {
            return new JobSpec(
                    command,
                    description,
                    owner,
                    groups,
                    defaults,
                    preflights,
                    extraOutputTopics,
                    otherInput,
                    printGuarantee,
                    copies,
                    workflow);
        }
    }
}
