package io.kfp.deploy.job;

import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigProblem;
import io.kfp.common.config.JobOptions;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
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
 * One of the jobs kfp deploys, by the name an operator types (ingest, relay, sink): its module, its
 * shaded jar, its config file {@code conf/jobs/NAME.yaml}, and the settings kfp itself reads from
 * that file (job name, topics) - read with the same loader the job's own main uses, so nested YAML
 * keys, Flink's key names and {@code KFP_*} variables mean what they mean to the job.
 */
public record DeployedJob(String name) {

    public static final List<String> NAMES = List.of("ingest", "relay", "sink");

    public static DeployedJob of(String name) {
        if (!NAMES.contains(name)) {
            throw new KfpException("unknown job '" + name + "': use ingest, relay or sink");
        }
        return new DeployedJob(name);
    }

    String module() {
        return name + "-job";
    }

    Path jar(KfpSettings settings) {
        return settings.repo()
                .resolve(module())
                .resolve("target")
                .resolve(module() + "-" + settings.version() + "-job.jar");
    }

    public Path defaultConfig(KfpSettings settings) {
        return settings.home().resolve("conf").resolve("jobs").resolve(name + ".yaml");
    }

    /**
     * The job's settings from {@code file} and the environment, as its main would load them (not
     * yet validated).
     */
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
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        args.toArray(String[]::new),
                        environment,
                        Map.of(JobOptions.NAME.key(), module()),
                        List.of(
                                JobOptions.GROUP,
                                KafkaClientOptions.GROUP,
                                SourceOptions.GROUP,
                                KafkaSinkOptions.GROUP));
        if (!loaded.syntaxProblems().isEmpty()) {
            throw new KfpException(
                    "cannot read the "
                            + name
                            + " job's config: "
                            + loaded.syntaxProblems().stream()
                                    .map(ConfigProblem::describe)
                                    .collect(Collectors.joining("; ")));
        }
        // The values as written, not validated: fine for the string options kfp reads (names,
        // topics, servers); an enum option read here would need ConfigValidator's spelling rules.
        return Configuration.fromMap(loaded.raw().values());
    }

    /** The Flink job name it runs under (job.name). */
    public String jobName(Path file, Map<String, String> environment) {
        return jobName(file, environment, List.of());
    }

    /** The job name with the command line's options applied, as the job will run. */
    public String jobName(Path file, Map<String, String> environment, List<String> options) {
        return settings(file, environment, options).get(JobOptions.NAME);
    }

    /** The topics it reads and writes. */
    public List<String> topics(Path file, Map<String, String> environment) {
        Configuration config = settings(file, environment);
        List<String> topics = new ArrayList<>(SourceOptions.topics(config));
        config.getOptional(KafkaSinkOptions.TOPIC).ifPresent(topics::add);
        return topics;
    }
}
