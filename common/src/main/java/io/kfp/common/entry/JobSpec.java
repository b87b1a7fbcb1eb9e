package io.kfp.common.entry;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.checkpoint.RestartOptions;
import io.kfp.common.checkpoint.StateOptions;
import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.JobOptions;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.preflight.JobPreflight;
import io.kfp.common.preflight.PreflightOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Everything the entry point needs to know about a job: its command name, what it does, the option
 * groups it accepts, its own defaults, the topics it writes besides {@code sink.topic} (for its
 * ACLs), and its workflow for a valid configuration. How the workflow runs - until it ends, or
 * submitted without waiting - is the caller's choice: {@link JobEntryPoint} for a job's {@code
 * main}, the embedded runner, the benchmarks.
 */
public record JobSpec(
        String command,
        String description,
        List<OptionGroup> groups,
        Map<String, String> defaults,
        List<JobPreflight> preflights,
        Function<ReadableConfig, List<String>> extraOutputTopics,
        Function<ReadableConfig, ? extends Workflow> workflow) {

    public JobSpec {
        groups = List.copyOf(groups);
        defaults = Map.copyOf(defaults);
        preflights = List.copyOf(preflights);
    }

    /**
     * The job's configuration from command-line arguments alone (defaults, the job's defaults,
     * {@code --config FILE}, the arguments; no environment), validated as its main would.
     *
     * @throws io.kfp.common.config.InvalidConfigurationException listing every problem
     */
    public Configuration configuration(String... args) {
        ConfigLoader.Loaded loaded = ConfigLoader.load(args, Map.of(), defaults, groups);
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

        private Builder(String command, String description) {
            this.command = command;
            this.description = description;
            defaults.put(JobOptions.NAME.key(), command);
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
         * Ends the spec: the job's graph for a validated configuration (e.g. {@code
         * RelayJob::fromConfig}).
         */
        public JobSpec workflow(Function<ReadableConfig, ? extends Workflow> workflow) {
            return new JobSpec(
                    command,
                    description,
                    groups,
                    defaults,
                    preflights,
                    extraOutputTopics,
                    workflow);
        }
    }
}
