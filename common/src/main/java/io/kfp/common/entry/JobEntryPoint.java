package io.kfp.common.entry;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.checkpoint.RestoreCheck;
import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigProblem;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.InvalidConfigurationException;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.config.OptionsHelp;
import io.kfp.common.config.RawConfig;
import io.kfp.common.config.SecretRedaction;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.RestoreAgeCheck;
import io.kfp.common.kafka.TransactionalIdGrowth;
import io.kfp.common.preflight.AdminBrokerView;
import io.kfp.common.preflight.BrokerPreflight;
import io.kfp.common.preflight.PreflightOptions;
import io.kfp.common.preflight.RequiredAcls;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every job's {@code main} does, in order: parse settings, answer {@code --help}, validate
 * (all errors at once, exit 2, nothing submitted), log the effective configuration with secrets
 * hidden, check the broker, run: by default until the job ends, as {@code flink run} expects of a
 * job's main; the embedded runner and the tests pass a {@link Launcher} that submits without
 * waiting.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     JobEntryPoint.main(RelayJob.SPEC, args);
 * }
 * }</pre>
 */
public final class JobEntryPoint {

    /** The settings were wrong or Kafka would refuse the job: nothing was submitted. */
    public static final int EXIT_USER_ERROR = 2;

    /** The job ran and failed. */
    public static final int EXIT_JOB_FAILED = 1;

    /** {@link CheckpointOptions#CHECK_RESTORE_FROM}: state in it has no home in the job. */
    public static final int EXIT_STATE_DROPPED = 1;

    private static final Logger LOG = LoggerFactory.getLogger(JobEntryPoint.class);

    /** Runs a job whose configuration is valid and whose broker passed the preflight. */
    @FunctionalInterface
    public interface Launcher {
        void launch(JobSpec spec, Configuration config) throws Exception;
    }

    /** The spec's workflow, run until it ends (never, for an unbounded source). */
    public static final Launcher UNTIL_IT_ENDS =
            (spec, config) -> StreamEnvironments.execute(config, spec.workflow(config));

    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;
    private final BrokerPreflight.BrokerViewFactory brokers;

    public JobEntryPoint(
            Map<String, String> environment,
            PrintStream out,
            PrintStream err,
            BrokerPreflight.BrokerViewFactory brokers) {
        this.environment = environment;
        this.out = out;
        this.err = err;
        this.brokers = brokers;
    }

    /** Runs {@code spec} with the process's environment and exits non-zero on failure. */
    public static void main(JobSpec spec, String[] args) {
        int code =
                new JobEntryPoint(System.getenv(), System.out, System.err, AdminBrokerView::new)
                        .run(spec, args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * Runs {@code spec} until it ends; returns the process exit code (0, {@value #EXIT_USER_ERROR},
     * {@value #EXIT_JOB_FAILED}).
     */
    public int run(JobSpec spec, String[] args) {
        return run(spec, args, UNTIL_IT_ENDS);
    }

    /** Like {@link #run(JobSpec, String[])}, with {@code launcher} running the validated job. */
    public int run(JobSpec spec, String[] args, Launcher launcher) {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(args, environment, spec.defaults(), spec.groups());
        if (loaded.helpRequested()) {
            out.print(
                    OptionsHelp.render(
                            spec.command(), spec.description(), spec.groups(), spec.defaults()));
            out.flush();
            return 0;
        }

        loaded.warnings().forEach(warning -> warn(spec, warning));
        if (loaded.fileUnreadable()) {
            // Without the file's settings every later check would report its own follow-on error.
            reportUserError(
                    spec, loaded.syntaxProblems(), "configuration error", "configuration errors");
            return EXIT_USER_ERROR;
        }
        Configuration config;
        try {
            config = ConfigValidator.validate(loaded.raw(), spec.groups(), loaded.syntaxProblems());
        } catch (InvalidConfigurationException e) {
            reportUserError(spec, e.problems(), "configuration error", "configuration errors");
            return EXIT_USER_ERROR;
        }
        if (config.getOptional(PreflightOptions.PRINT_ACLS).isPresent()) {
            RequiredAcls.kafkaAclsLines(
                            RequiredAcls.of(
                                    config,
                                    spec.groups(),
                                    spec.extraOutputTopics().apply(config),
                                    config.get(PreflightOptions.PRINT_ACLS)),
                            config,
                            config.get(KafkaClientOptions.BOOTSTRAP_SERVERS))
                    .forEach(out::println);
            out.flush();
            return 0;
        }
        if (config.getOptional(CheckpointOptions.CHECK_RESTORE_FROM).isPresent()) {
            return checkRestore(spec, config);
        }
        LOG.info(
                "Starting {} with this configuration (secrets hidden):\n{}",
                spec.command(),
                describeEffective(loaded.raw(), spec.groups(), spec.defaults(), config));

        RestoreAgeCheck.warning(config).ifPresent(warning -> warn(spec, warning));
        if (spec.groups().contains(KafkaSinkOptions.GROUP)) {
            TransactionalIdGrowth.warning(config).ifPresent(warning -> warn(spec, warning));
        }
        if (config.get(PreflightOptions.SKIP)) {
            LOG.warn(
                    "Preflight skipped (preflight.skip=true): broker reachability, topics and the"
                            + " broker's transaction.max.timeout.ms were not checked.");
        } else {
            List<ConfigProblem> problems =
                    BrokerPreflight.run(
                            BrokerPreflight.Requirements.from(config, spec.groups()),
                            KafkaClientOptions.connectionProperties(config),
                            config.get(PreflightOptions.TIMEOUT),
                            brokers,
                            config,
                            spec.preflights(),
                            warning -> warn(spec, warning));
            if (!problems.isEmpty()) {
                reportUserError(
                        spec,
                        problems,
                        "problem with the Kafka cluster",
                        "problems with the Kafka cluster");
                return EXIT_USER_ERROR;
            }
        }

        try {
            launcher.launch(spec, config);
            return 0;
        } catch (Exception e) {
            LOG.error("{} failed", spec.command(), e);
            err.println(
                    spec.command()
                            + ": the job failed: "
                            + ExceptionUtils.stringifyException(
                                            org.apache.commons.lang3.exception.ExceptionUtils
                                                    .getRootCause(e))
                                    .lines()
                                    .findFirst()
                                    .orElse(""));
            err.println("See the log for the full stack trace.");
            err.flush();
            return EXIT_JOB_FAILED;
        }
    }

    /** {@link CheckpointOptions#CHECK_RESTORE_FROM}: the verdict on stdout, nothing run. */
    private int checkRestore(JobSpec spec, Configuration config) {
        String path = config.get(CheckpointOptions.CHECK_RESTORE_FROM);
        RestoreCheck.Verdict verdict;
        try {
            verdict =
                    RestoreCheck.check(
                            path, StreamEnvironments.jobGraph(config, spec.workflow(config)));
        } catch (Exception e) {
            err.println(
                    spec.command()
                            + ": could not read "
                            + path
                            + " ("
                            + CheckpointOptions.CHECK_RESTORE_FROM.key()
                            + "): "
                            + e.getMessage());
            err.flush();
            return EXIT_USER_ERROR;
        }
        verdict.lines(spec.command()).forEach(out::println);
        out.flush();
        return verdict.restores() ? 0 : EXIT_STATE_DROPPED;
    }

    /** A warning the user should see before the job runs: on stderr and in the log. */
    private void warn(JobSpec spec, String warning) {
        LOG.warn(warning);
        err.println(spec.command() + ": warning: " + warning);
    }

    private void reportUserError(
            JobSpec spec, List<ConfigProblem> problems, String singular, String plural) {
        err.println(
                spec.command()
                        + ": "
                        + problems.size()
                        + " "
                        + (problems.size() == 1 ? singular : plural)
                        + "; nothing was submitted.");
        for (ConfigProblem problem : problems) {
            err.println("  - " + problem.describe());
        }
        err.println("Run " + spec.command() + " --help to list every option with its default.");
        err.flush();
    }

    /** One line per setting: key = value [origin], secrets hidden, sorted by key. */
    static String describeEffective(
            RawConfig raw,
            List<OptionGroup> groups,
            Map<String, String> jobDefaults,
            Configuration config) {
        Map<String, String> lines = new TreeMap<>();
        for (OptionGroup group : groups) {
            for (ConfigOption<?> option : group.options()) {
                RawConfig.Entry entry = raw.entry(option.key());
                String line;
                if (entry == null) {
                    line =
                            (option.hasDefaultValue()
                                            ? OptionsHelp.defaultText(option, jobDefaults)
                                            : "(unset)")
                                    + "  [default]";
                } else {
                    line =
                            SecretRedaction.redact(option.key(), entry.value())
                                    + "  ["
                                    + describeOrigin(entry)
                                    + "]";
                }
                lines.put(option.key(), line);
            }
        }
        raw.entries()
                .forEach(
                        (k, e) ->
                                lines.putIfAbsent(
                                        k,
                                        SecretRedaction.redact(k, e.value())
                                                + "  ["
                                                + describeOrigin(e)
                                                + "]"));
        List<String> rendered = new ArrayList<>();
        lines.forEach((k, v) -> rendered.add("  " + k + " = " + v));
        return String.join("\n", rendered);
    }

    private static String describeOrigin(RawConfig.Entry entry) {
        return entry.origin()
                + (entry.writtenAs() == null ? "" : ", given as " + entry.writtenAs());
    }
}
