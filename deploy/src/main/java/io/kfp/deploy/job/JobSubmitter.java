package io.kfp.deploy.job;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.JobOptions;
import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.preflight.PreflightOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.cluster.SubmittedJobId;
import io.kfp.deploy.kafka.AclGrant;
import io.kfp.deploy.kafka.KafkaSecurity;
import io.kfp.deploy.kafka.Topics;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * Submits a job jar to the cluster the way an operator would, with Flink's own CLI ({@code flink
 * run -d}): the job's main runs in the CLI's JVM, so it validates its settings and checks the
 * broker before anything reaches the cluster, and exits 2 with its message if not.
 */
public final class JobSubmitter {

    /**
     * For the JVMs kfp starts to run a job's main or a Kafka tool once (seconds, then exit): the C1
     * compiler only and the serial collector. The default tiered C2 compiler and G1 spend CPU on
     * code that never runs long; measured in the lab, a {@code flink run} of the relay used 6.8-9.4
     * s of CPU with the defaults and 3.9-4.7 s with these, and on the loaded 2-core lab a rescale's
     * resubmission, a JVM on a shared core, took 12-16 s with the defaults.
     */
    static final List<String> SHORT_LIVED_JVM =
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /**
     * {@link #SHORT_LIVED_JVM}, without the collector when the user's {@code JAVA_TOOL_OPTIONS} or
     * {@code JDK_JAVA_OPTIONS} already choose one: two collectors and the JVM refuses to start.
     */
    static List<String> shortLivedJvm(Map<String, String> environment) {
        boolean collectorChosen =
                Stream.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")
                        .map(name -> environment.getOrDefault(name, ""))
                        .anyMatch(options -> options.matches("(?s).*-XX:\\+Use\\w*GC\\b.*"));
        return collectorChosen ? List.of("-XX:TieredStopAtLevel=1") : SHORT_LIVED_JVM;
    }

    private final KfpSettings settings;
    private final FlinkCluster cluster;
    private final JobCatalog jobs;
    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    public JobSubmitter(
            KfpSettings settings,
            JobCatalog jobs,
            FlinkCluster cluster,
            Map<String, String> environment,
            PrintStream out,
            PrintStream err) {
        this.settings = settings;
        this.jobs = jobs;
        this.cluster = cluster;
        this.environment = environment;
        this.out = out;
        this.err = err;
    }

    /**
     * The job's command line: kfp's settings for where things run, then the user's, paths made
     * absolute.
     */
    record Submission(Path config, List<String> args) {}

    Submission plan(DeployedJob job, List<String> userArgs) {
        List<String> args = new ArrayList<>();
        // Explicit kfp settings for where things run apply to every job; the job's file says the
        // rest.
        if (settings.externalKafka() || settings.kafkaPortGiven() || settings.topology() != null) {
            args.addAll(List.of("--kafka.bootstrap-servers", settings.bootstrap()));
        }
        KafkaSecurity security = settings.kafkaSecurity();
        if (!settings.externalKafka() && security.enabled()) {
            // The job's own user on the secure broker; its password stays in its file, read by each
            // client at start.
            security.clientSettings(job.name())
                    .forEach(
                            (key, value) ->
                                    args.addAll(
                                            List.of(
                                                    "--"
                                                            + KafkaClientOptions.PROPERTIES_PREFIX
                                                            + key,
                                                    value.toString())));
        }
        if (settings.topology() != null) {
            String shared = cluster.sharedStorage();
            args.addAll(
                    List.of(
                            "--checkpoint.dir",
                            shared + "/checkpoints/" + job.name(),
                            "--checkpoint.savepoint-dir",
                            shared + "/savepoints/" + job.name()));
        } else if (settings.runDirGiven()) {
            args.addAll(
                    List.of(
                            "--checkpoint.dir",
                                    settings.run()
                                            .resolve("checkpoints")
                                            .resolve(job.name())
                                            .toString(),
                            "--checkpoint.savepoint-dir",
                                    settings.run()
                                            .resolve("savepoints")
                                            .resolve(job.name())
                                            .toString()));
        }
        Path config = job.defaultConfig(settings);
        for (int i = 0; i < userArgs.size(); i++) {
            String arg = userArgs.get(i);
            if (arg.equals("--config") || arg.equals("--checkpoint.restore-from")) {
                if (i + 1 >= userArgs.size() || userArgs.get(i + 1).startsWith("--")) {
                    throw new KfpException(
                            arg + " needs a " + (arg.equals("--config") ? "file" : "path"));
                }
                String value = settings.absolute(userArgs.get(++i));
                if (arg.equals("--config")) {
                    config = Path.of(value);
                } else {
                    args.addAll(List.of(arg, value));
                }
            } else if (arg.startsWith("--config=")) {
                config = Path.of(settings.absolute(arg.substring("--config=".length())));
            } else if (arg.startsWith("--checkpoint.restore-from=")) {
                args.addAll(
                        List.of(
                                "--checkpoint.restore-from",
                                settings.absolute(arg.substring(arg.indexOf('=') + 1))));
            } else {
                args.add(arg);
            }
        }
        if (!Files.isRegularFile(config)) {
            throw new KfpException("job config " + config + " does not exist");
        }
        return new Submission(config, args);
    }

    /**
     * Where the job's savepoints go, as it is configured ({@code checkpoint.savepoint-dir}): a
     * stop-with-savepoint without a directory would take the cluster's instead.
     */
    public String savepointDirectory(DeployedJob job, List<String> userArgs) {
        return directory(job, userArgs, CheckpointOptions.SAVEPOINT_DIRECTORY);
    }

    /** The job's directory of that option, as a path or URI kfp can hand to Flink. */
    private String directory(
            DeployedJob job,
            List<String> userArgs,
            org.apache.flink.configuration.ConfigOption<String> option) {
        String dir = configuration(job, userArgs).get(option);
        // Relative paths in job configs are relative to the repository (see runCli).
        return dir.startsWith("/") || dir.contains(":")
                ? dir
                : settings.repo().resolve(dir).normalize().toString();
    }

    /**
     * The job's savepoints and retained checkpoints in its storage, read by {@link StoredStates} in
     * a JVM with the cluster's file systems (S3 in the lab).
     */
    public List<StoredStates.Stored> storedStates(DeployedJob job, List<String> userArgs) {
        List<String> command = shortLivedJava(cluster.classpath() + ":" + settings.ownClasspath());
        command.addAll(
                List.of(
                        StoredStates.class.getName(),
                        directory(job, userArgs, CheckpointOptions.DIRECTORY),
                        directory(job, userArgs, CheckpointOptions.SAVEPOINT_DIRECTORY)));
        try {
            String printed =
                    runCaptured(
                            command,
                            "states-" + job.name(),
                            output -> "could not list the savepoints of " + job.name());
            return printed.lines()
                    .filter(line -> line.matches("(savepoint|checkpoint)\\t\\d+\\t.*"))
                    .map(StoredStates.Stored::parse)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The job's configuration as {@code userArgs} would submit it. */
    public Configuration configuration(DeployedJob job, List<String> userArgs) {
        Submission submission = plan(job, userArgs);
        return job.settings(submission.config(), environment, submission.args());
    }

    /** The job's savepoints and retained checkpoints with why each was taken and how safe it is. */
    public StateHistory history(DeployedJob job, List<String> userArgs) {
        Configuration config = configuration(job, userArgs);
        Duration timeout =
                config.get(KafkaSinkOptions.DELIVERY_GUARANTEE) == DeliveryGuarantee.EXACTLY_ONCE
                                && job.spec().writesKafka()
                        ? config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT)
                        : null;
        return new StateHistory(
                storedStates(job, userArgs),
                new JobJars(settings).savepointsTaken(job),
                timeout,
                System.currentTimeMillis());
    }

    /** Deletes those savepoints and retained checkpoints of the job from its storage. */
    public void deleteStates(DeployedJob job, List<String> paths) {
        List<String> command = shortLivedJava(cluster.classpath() + ":" + settings.ownClasspath());
        command.addAll(List.of(StoredStates.class.getName(), "--delete"));
        command.addAll(paths);
        try {
            runCaptured(
                    command,
                    "delete-states-" + job.name(),
                    output -> "could not delete the savepoints of " + job.name());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Refuses a job that would clash with another job's topics, group or transactional ids, or of
     * whose name a job runs on the cluster.
     */
    public void refuseClashes(DeployedJob job, List<String> userArgs) {
        Configuration config = configuration(job, userArgs);
        jobs.refuseConflicts(job, config, environment);
        String name = config.get(JobOptions.NAME);
        try (FlinkRest rest = FlinkRest.connect(cluster.writeConf())) {
            FlinkRest.refuseSecondCopy(rest.jobs(), name, job.name());
        }
    }

    /** Submits the built jar detached, kept under its version; prints and returns the job id. */
    public String submit(DeployedJob job, List<String> userArgs) {
        return submit(job, userArgs, new JobJars(settings).keep(job));
    }

    /** Submits {@code version} of the job detached; prints and returns the job id. */
    public String submit(DeployedJob job, List<String> userArgs, JobJars.Version version) {
        String id = submitJar(job, userArgs, version.jar());
        new JobJars(settings).markRunning(job, version, userArgs);
        return id;
    }

    private String submitJar(DeployedJob job, List<String> userArgs, Path jar) {
        if (!settings.externalKafka() && settings.kafkaSecurity().enabled()) {
            settings.kafkaSecurity().ensureUser(job.name(), () -> Topics.admin(settings));
        }
        refuseClashes(job, userArgs);
        Submission submission = plan(job, userArgs);
        try {
            Path idFile = Files.createTempFile(tmpDir(), "submit-" + job.name() + "-", ".jobid");
            try {
                List<String> command = new ArrayList<>(cli(idFile));
                command.addAll(
                        List.of(
                                "run",
                                "-d",
                                "-D"
                                        + DeploymentOptions.JOB_LISTENERS.key()
                                        + "="
                                        + SubmittedJobId.class.getName(),
                                jar.toString(),
                                "--config",
                                submission.config().toString()));
                command.addAll(submission.args());
                String printed =
                        runCaptured(
                                command,
                                "submit-" + job.name(),
                                output ->
                                        job.module()
                                                + " was not submitted"
                                                + (output.contains("not authorized")
                                                                && !settings.externalKafka()
                                                                && settings.kafkaSecurity()
                                                                        .enabled()
                                                        ? "; on kfp's secure broker it logs in as User:"
                                                                + job.name()
                                                                + ", and 'kfp acls "
                                                                + job.name()
                                                                + " --grant' gives it what it needs"
                                                        : ""));
                String id = Files.readString(idFile).trim();
                if (!id.matches("[0-9a-f]{32}")) {
                    err.print(printed);
                    throw new KfpException(
                            "flink run ended without submitting "
                                    + job.module()
                                    + "; its output is above.");
                }
                out.println(id);
                return id;
            } finally {
                Files.deleteIfExists(idFile);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Prints the kafka-acls.sh lines granting {@code principal} what the job needs, computed by the
     * job's own main from the settings it would be submitted with ({@code --preflight.print-acls}):
     * no cluster and no broker needed.
     */
    public void printAcls(DeployedJob job, List<String> userArgs, String principal) {
        out.print(acls(job, userArgs, principal));
    }

    /**
     * Grants them on kfp's secure broker: each printed line run by Kafka's own kafka-acls.sh
     * ({@code AclCommand}, see {@link AclGrant}) as kfp's admin user - so what {@code kfp acls}
     * prints is what works.
     */
    public void grantAcls(DeployedJob job, List<String> userArgs, String principal) {
        KafkaSecurity security = settings.kafkaSecurity();
        if (settings.externalKafka() || !security.enabled()) {
            throw new KfpException(
                    "--grant: "
                            + (settings.externalKafka()
                                    ? "KAFKA_BOOTSTRAP="
                                            + settings.bootstrap()
                                            + " is not kfp's broker"
                                    : "the broker kfp started does not authorize (it was not started with 'kfp kafka start --secure')")
                            + ". On another cluster run the printed lines (kfp acls "
                            + job.name()
                            + ") with its admin's settings: kafka-acls.sh ... --command-config FILE.");
        }
        List<String> lines = new ArrayList<>();
        for (String line : acls(job, userArgs, principal).split("\n")) {
            if (line.startsWith("#")) {
                out.println(line);
            } else if (line.startsWith(AclGrant.KAFKA_ACLS)) {
                lines.add(line);
            }
        }
        List<String> command = new ArrayList<>(List.of(settings.javaBin()));
        command.addAll(shortLivedJvm(environment));
        command.addAll(
                List.of(
                        "-cp",
                        settings.dist().resolve("kafka").resolve("libs")
                                + "/*:"
                                + settings.ownClasspath(),
                        AclGrant.class.getName(),
                        security.adminProperties().toString()));
        command.addAll(lines);
        try {
            runCaptured(
                    command,
                    "grant-" + job.name(),
                    output -> "kafka-acls.sh did not grant " + principal + " all it needs");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        lines.forEach(
                line ->
                        out.println(
                                "granted: " + line.substring(line.indexOf("--allow-principal"))));
    }

    private String acls(DeployedJob job, List<String> userArgs, String principal) {
        List<String> command =
                mainCommand(job, userArgs, builtJar(job), PreflightOptions.PRINT_ACLS, principal);
        try {
            return runCaptured(
                    command,
                    "acls-" + job.name(),
                    output -> job.module() + " could not say which ACLs it needs");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether the savepoint or retained checkpoint at {@code path} restores into {@code version} of
     * the job as {@code userArgs} configure it, asked of the job's own main ({@code
     * --checkpoint.check-restore-from}); prints its verdict.
     */
    public boolean restores(
            DeployedJob job, List<String> userArgs, JobJars.Version version, String path) {
        List<String> command =
                mainCommand(
                        job,
                        userArgs,
                        version.jar(),
                        CheckpointOptions.CHECK_RESTORE_FROM,
                        settings.absolute(path));
        try {
            Path output =
                    Files.createTempFile(tmpDir(), "restore-check-" + job.name() + "-", ".out");
            try {
                int exit = runCli(command, output);
                String printed = Files.readString(output, StandardCharsets.UTF_8);
                if (exit != 0 && exit != JobEntryPoint.EXIT_STATE_DROPPED) {
                    err.print(printed);
                    throw new KfpException(
                            job.module()
                                    + " could not check "
                                    + path
                                    + " (exit code "
                                    + exit
                                    + "); its output is above.");
                }
                out.print(printed);
                return exit == 0;
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code java} with Flink's JVM options and CLI logging, for a run of seconds. */
    private List<String> shortLivedJava(String classpath) {
        List<String> command = new ArrayList<>(List.of(settings.javaBin()));
        command.addAll(shortLivedJvm(environment));
        command.addAll(FlinkCluster.JAVA_OPENS);
        command.addAll(
                List.of(
                        "-Dlog4j.configurationFile="
                                + settings.flinkConf().resolve("log4j-cli.properties"),
                        "-cp",
                        classpath));
        return command;
    }

    /** A JVM running the job's main from {@code jar} with one more option, run nothing else. */
    private List<String> mainCommand(
            DeployedJob job,
            List<String> userArgs,
            Path jar,
            org.apache.flink.configuration.ConfigOption<String> option,
            String value) {
        Submission submission = plan(job, userArgs);
        try (JarFile file = new JarFile(jar.toFile())) {
            String main =
                    file.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            List<String> command = shortLivedJava(jar + ":" + cluster.classpath());
            command.addAll(List.of(main, "--config", submission.config().toString()));
            command.addAll(submission.args());
            command.addAll(List.of("--" + option.key(), value));
            return command;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path builtJar(DeployedJob job) {
        Path jar = job.jar();
        if (!Files.isRegularFile(jar)) {
            throw new KfpException(jar + " is missing: run 'kfp build' first.");
        }
        return jar;
    }

    private Path tmpDir() throws IOException {
        return Files.createDirectories(settings.run().resolve("tmp"));
    }

    /**
     * Runs {@code command} (a JVM running a job's main) with its output in a temporary file and
     * returns that output; on a non-zero exit prints it to stderr and fails with {@code failure} of
     * it.
     */
    private String runCaptured(List<String> command, String prefix, UnaryOperator<String> failure)
            throws IOException {
        Path output = Files.createTempFile(tmpDir(), prefix + "-", ".out");
        try {
            int exit = runCli(command, output);
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            if (exit != 0) {
                err.print(printed);
                throw new KfpException(
                        failure.apply(printed) + " (exit code " + exit + "); its output is above.");
            }
            return printed;
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /**
     * Flink's CLI with our cluster's conf directory. The job's main runs inside it and reads {@code
     * KFP_*} variables as job options, so kfp's own variables are removed; a user's {@code
     * KFP_CHECKPOINT_INTERVAL} stays.
     */
    private List<String> cli(Path idFile) {
        List<String> command = new ArrayList<>();
        command.add(settings.javaBin());
        command.addAll(shortLivedJvm(environment));
        command.addAll(FlinkCluster.JAVA_OPENS);
        command.add(
                "-Dlog4j.configurationFile="
                        + settings.flinkConf().resolve("log4j-cli.properties"));
        command.add("-D" + SubmittedJobId.FILE_PROPERTY + "=" + idFile);
        command.add("-cp");
        command.add(cluster.classpath());
        command.add("org.apache.flink.client.cli.CliFrontend");
        return command;
    }

    private int runCli(List<String> command, Path output) throws IOException {
        Path plugins = cluster.pluginsDir();
        Files.createDirectories(plugins);
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        // Relative paths in job configs (checkpoint.dir) are relative to the
                        // repository.
                        .directory(settings.repo().toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> env = builder.environment();
        env.clear();
        env.putAll(environment);
        KfpSettings.OWN_VARIABLES.forEach(env::remove);
        env.put("FLINK_CONF_DIR", settings.flinkConf().toString());
        env.put("FLINK_PLUGINS_DIR", plugins.toString());
        // The S3 plugin's AWS SDK 1.x prints a deprecation banner with a stack trace otherwise,
        // among the lines kfp shows.
        env.put("AWS_JAVA_V1_DISABLE_DEPRECATION_ANNOUNCEMENT", "true");
        Process process = builder.start();
        try {
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new KfpException(
                        "flink run did not end within 10 minutes; its output: " + output,
                        KfpException.FAILED);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted while submitting", KfpException.FAILED, e);
        }
    }
}
