package io.kfp.deploy.job;

import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigProblem;
import io.kfp.common.config.InvalidConfigurationException;
import io.kfp.common.config.JobOptions;
import io.kfp.common.entry.JobEndpoints;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;

/**
 * One of the jobs kfp deploys (see {@link JobCatalog}), by the name an operator types: its module,
 * its built jar, its spec, its config file {@code conf/jobs/NAME.yaml}, and its settings read from
 * that file the way its own main reads them - the spec's groups and defaults, nested YAML keys,
 * Flink's key names and {@code KFP_*} variables - and validated by the same rules.
 */
public record DeployedJob(String name, String module, Path jar, JobSpec spec) {

    public Path defaultConfig(KfpSettings settings) {
        return settings.home().resolve("conf").resolve("jobs").resolve(name + ".yaml");
    }

    /** The job's validated settings from {@code file} and the environment, as its main has them. */
    public Configuration settings(Path file, Map<String, String> environment) {
        return settings(file, environment, List.of());
    }

    /**
     * As {@link #settings(Path, Map)}, with the command line's {@code --key value} options on top.
     */
    public Configuration settings(
            Path file, Map<String, String> environment, List<String> options) {
        List<String> args =
                new ArrayList<>(List.of("--" + ConfigLoader.CONFIG_FILE_FLAG, file.toString()));
        args.addAll(options);
        try {
            return spec.configuration(environment, args.toArray(String[]::new));
        } catch (InvalidConfigurationException e) {
            throw new KfpException(
                    "cannot read the "
                            + name
                            + " job's config: "
                            + e.problems().stream()
                                    .map(ConfigProblem::describe)
                                    .collect(Collectors.joining("; ")));
        }
    }

    /** The Flink job name it runs under (job.name). */
    public String jobName(Path file, Map<String, String> environment) {
        return jobName(file, environment, List.of());
    }

    /** The job name with the command line's options applied, as the job will run. */
    public String jobName(Path file, Map<String, String> environment, List<String> options) {
        return settings(file, environment, options).get(JobOptions.NAME);
    }

    /** What it reads and writes under the settings in {@code file}. */
    public JobEndpoints endpoints(Path file, Map<String, String> environment) {
        return spec.endpoints(settings(file, environment));
    }

    /** The Kafka topics it reads and writes, to create. */
    public List<String> topics(Path file, Map<String, String> environment) {
        Configuration config = settings(file, environment);
        List<String> topics = new ArrayList<>(SourceOptions.topics(config));
        topics.addAll(spec.endpoints(config).outputTopics());
        return topics;
    }
}
