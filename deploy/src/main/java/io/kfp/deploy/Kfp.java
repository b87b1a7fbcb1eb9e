package io.kfp.deploy;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.client.JobStatusMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code kfp}: this repository's jobs on a standalone Flink 2.2 cluster with a Kafka 4.2 broker,
 * both assembled from Maven artifacts by {@code kfp build}. {@code deploy/bin/kfp} is a thin
 * launcher for this class; {@code kfp help} and {@code kfp COMMAND --help} are generated from the
 * annotations below. Every process it starts is tracked by a PID file and stopped by that PID only.
 */
@Command(
        name = "kfp",
        description = "The pipeline's jobs on a standalone Flink cluster and a Kafka broker (all on loopback).",
        synopsisSubcommandLabel = "COMMAND",
        mixinStandardHelpOptions = true,
        versionProvider = Kfp.Version.class,
        subcommands = {
            HelpCommand.class,
            Kfp.Build.class,
            Kfp.Kafka.class,
            Kfp.Cluster.class,
            Kfp.TaskManager.class,
            Kfp.TopicsCommand.class,
            Kfp.Submit.class,
            Kfp.Stop.class,
            Kfp.Resume.class,
            Kfp.Cancel.class,
            Kfp.Status.class,
            Kfp.Logs.class
        },
        footer = {
            "",
            "Runtime files (PIDs, logs, broker data, checkpoints) live in deploy/run (KFP_RUN_DIR).",
            "FLINK_HOME=/path/to/flink-2.2 uses that installation; KAFKA_BOOTSTRAP=host:port an existing Kafka.",
            "Ports: KFP_KAFKA_PORT, KFP_CONTROLLER_PORT, KFP_REST_PORT, KFP_RPC_PORT, KFP_PROM_PORTS;"
                    + " KFP_TASKMANAGERS how many TaskManagers."
        })
public final class Kfp implements Callable<Integer> {

    private final Map<String, String> environment;
    private final Path home;
    private final Path callerDir;
    private final PrintStream out;
    private final PrintStream err;
    private KfpSettings settings;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    Kfp(Map<String, String> environment, Path home, Path callerDir, PrintStream out, PrintStream err) {
        this.environment = environment;
        this.home = home;
        this.callerDir = callerDir;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        String home = System.getProperty("kfp.home");
        if (home == null) {
            System.err.println("kfp: run me through deploy/bin/kfp (it sets -Dkfp.home).");
            System.exit(KfpException.USER_ERROR);
        }
        System.exit(run(args, System.getenv(), Path.of(home).toAbsolutePath().normalize(),
                Path.of("").toAbsolutePath(), System.out, System.err));
    }

    /** Runs one kfp command; returns its exit code. */
    static int run(String[] args, Map<String, String> environment, Path home, Path callerDir, PrintStream out, PrintStream err) {
        CommandLine commandLine = commandLine(new Kfp(environment, home, callerDir, out, err));
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof KfpException k) {
                err.println("kfp: " + k.getMessage());
                err.flush();
                return k.exitCode();
            }
            throw e;
        });
        return commandLine.execute(args);
    }

    static CommandLine commandLine(Kfp kfp) {
        CommandLine commandLine = new CommandLine(kfp);
        // "@file" is a job option's value, not a picocli argument file.
        commandLine.setExpandAtFiles(false);
        // Job options (--checkpoint.interval 2s) are passed through to the job as they are.
        for (String name : List.of("submit", "resume")) {
            commandLine.getSubcommands().get(name).setUnmatchedOptionsArePositionalParams(true);
        }
        // Help says where things are with the settings in force, when they are valid.
        try {
            KfpSettings settings = kfp.settings();
            describe(commandLine, "kafka", settings.externalKafka()
                    ? "KAFKA_BOOTSTRAP=" + settings.bootstrap() + " is used: kfp starts no broker."
                    : "Single-node KRaft broker on " + settings.bootstrap() + ".");
            describe(commandLine, "cluster", "JobManager + " + settings.taskManagers() + " TaskManagers; Web UI "
                    + settings.restUrl() + ".");
        } catch (KfpException invalid) {
            // Reported when a command runs; help stays general.
        }
        return commandLine;
    }

    private static void describe(CommandLine commandLine, String command, String description) {
        commandLine.getSubcommands().get(command).getCommandSpec().usageMessage().description(description);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return 0;
    }

    KfpSettings settings() {
        if (settings == null) {
            settings = KfpSettings.from(environment, home, callerDir);
        }
        return settings;
    }

    Processes processes() {
        return new Processes(settings().run(), out, err);
    }

    KafkaBroker kafka() {
        return new KafkaBroker(settings(), processes(), out);
    }

    FlinkCluster cluster() {
        return new FlinkCluster(settings(), processes(), out);
    }

    FlinkRest rest() {
        return FlinkRest.connect(cluster().writeConf());
    }

    /** Where kfp's own classes are, for the cluster's JVMs (our Prometheus reporter) and Flink's CLI (our job listener). */
    static String ownClasspath(KfpSettings settings) {
        Path classes = settings.home().resolve("target").resolve("classes");
        Path jar = settings.dist().resolve("kfp").resolve("kfp.jar");
        return Files.isDirectory(classes) ? classes + ":" + jar : jar.toString();
    }

    /** The Flink job name of {@code job}, from its config file (job.name). */
    String jobName(DeployedJob job) {
        return job.jobName(job.defaultConfig(settings()), environment);
    }

    // --- commands ----------------------------------------------------------------------------

    @Command(name = "build", mixinStandardHelpOptions = true,
            description = "Build the job jars, the Flink cluster and the broker (Maven; deploy/bin/kfp runs it before this CLI exists).")
    static final class Build implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new KfpException("'kfp build' is run by deploy/bin/kfp itself (mvn package): call deploy/bin/kfp build.");
        }
    }

    @Command(name = "kafka", mixinStandardHelpOptions = true,
            description = "Single-node KRaft broker on 127.0.0.1 (KFP_KAFKA_PORT, 9092 by default).")
    static final class Kafka {
        @ParentCommand Kfp kfp;

        @Command(name = "start", description = "Format its storage the first time, start it, wait until it answers.")
        void start() {
            kfp.kafka().start();
        }

        @Command(name = "stop", description = "Stop it by its PID (TERM, then KILL after 30 s).")
        void stop() {
            kfp.kafka().stop();
        }

        @Command(name = "status", description = "Whether it runs, and its bootstrap servers.")
        void status() {
            kfp.kafka().status();
        }
    }

    @Command(name = "cluster", mixinStandardHelpOptions = true,
            description = "JobManager + TaskManagers (KFP_TASKMANAGERS, 3 by default); Web UI on 127.0.0.1 (KFP_REST_PORT, 8081).")
    static final class Cluster {
        @ParentCommand Kfp kfp;

        @Command(name = "start", description = "Start the JobManager and the TaskManagers; wait until all are registered.")
        void start() {
            kfp.cluster().start();
        }

        @Command(name = "stop", description = "Stop every TaskManager, then the JobManager, by PID.")
        void stop() {
            kfp.cluster().stop();
        }

        @Command(name = "status", description = "Processes, and how many TaskManagers are registered.")
        void status() {
            kfp.cluster().status();
        }
    }

    @Command(name = "taskmanager", mixinStandardHelpOptions = true,
            description = "One TaskManager (e.g. to replace a crashed one).")
    static final class TaskManager {
        @ParentCommand Kfp kfp;

        @Command(name = "start", description = "Start TaskManager N (resource id tm-N).")
        void start(@Parameters(paramLabel = "N", description = "its number") int n) {
            kfp.cluster().startTaskManager(n);
        }

        @Command(name = "stop", description = "Stop TaskManager N by its PID.")
        void stop(@Parameters(paramLabel = "N", description = "its number") int n) {
            kfp.cluster().stopTaskManager(n);
        }
    }

    @Command(name = "topics", mixinStandardHelpOptions = true,
            description = "Kafka topics of the jobs.")
    static final class TopicsCommand {
        @ParentCommand Kfp kfp;

        @Command(name = "create", description = "Create the topics named in deploy/conf/jobs/*.yaml (4 partitions each).")
        void create() {
            KfpSettings settings = kfp.settings();
            settings.requireDist();
            TreeSet<String> topics = new TreeSet<>();
            for (String name : DeployedJob.NAMES) {
                DeployedJob job = DeployedJob.of(name);
                Path config = job.defaultConfig(settings);
                if (Files.isRegularFile(config)) {
                    topics.addAll(job.topics(config, kfp.environment));
                }
            }
            new Topics(settings.bootstrap(), kfp.out).create(topics, Topics.PARTITIONS, (short) 1);
        }
    }

    @Command(name = "submit", mixinStandardHelpOptions = true,
            description = {"Submit ingest, relay or sink detached; prints the job id.",
                "Its options come from deploy/conf/jobs/JOB.yaml (or --config FILE); any --key value after JOB overrides them."})
    static final class Submit implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(index = "0", paramLabel = "JOB", description = "ingest, relay or sink")
        String job;

        @Option(names = "--config", paramLabel = "FILE", description = "the job's config file instead of deploy/conf/jobs/JOB.yaml")
        String config;

        @Parameters(index = "1..*", paramLabel = "--key value", description = "job options (the job's --help lists them)")
        List<String> options = new ArrayList<>();

        @Override
        public Integer call() {
            kfp.submitter().submit(DeployedJob.of(job), withConfig(config, options));
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stop a job with a savepoint; prints the savepoint's path.")
    static final class Stop implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(paramLabel = "JOB", description = "ingest, relay or sink")
        String job;

        @Option(names = "--savepoint", paramLabel = "DIR", description = "where to write it (default: the job's checkpoint.savepoint-dir)")
        String savepoint;

        @Override
        public Integer call() {
            DeployedJob deployed = DeployedJob.of(job);
            try (FlinkRest rest = kfp.rest()) {
                JobID id = rest.runningJob(kfp.jobName(deployed));
                kfp.out.println(rest.stopWithSavepoint(id, savepoint == null ? null : kfp.settings().absolute(savepoint)));
            }
            return 0;
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = "Submit a job again, starting from a savepoint or retained checkpoint; prints the job id.")
    static final class Resume implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(index = "0", paramLabel = "JOB", description = "ingest, relay or sink")
        String job;

        @Option(names = "--from", required = true, paramLabel = "PATH",
                description = "the savepoint or retained checkpoint (.../savepoint-..., .../chk-N)")
        String from;

        @Option(names = "--config", paramLabel = "FILE", description = "the job's config file instead of deploy/conf/jobs/JOB.yaml")
        String config;

        @Parameters(index = "1..*", paramLabel = "--key value", description = "job options, e.g. --job.parallelism 3 to rescale")
        List<String> options = new ArrayList<>();

        @Override
        public Integer call() {
            List<String> args = new ArrayList<>(List.of("--checkpoint.restore-from", from));
            args.addAll(withConfig(config, options));
            kfp.submitter().submit(DeployedJob.of(job), args);
            return 0;
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = "Cancel a job (its last checkpoint is retained: kfp resume JOB --from .../chk-N).")
    static final class Cancel implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(paramLabel = "JOB", description = "ingest, relay or sink")
        String job;

        @Override
        public Integer call() {
            DeployedJob deployed = DeployedJob.of(job);
            try (FlinkRest rest = kfp.rest()) {
                JobID id = rest.runningJob(kfp.jobName(deployed));
                rest.cancel(id);
                kfp.out.println("cancelled " + id);
            }
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Processes, ports and jobs.")
    static final class Status implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Override
        public Integer call() {
            kfp.kafka().status();
            kfp.cluster().status();
            if (Processes.portOpen(kfp.settings().restPort())) {
                try (FlinkRest rest = kfp.rest()) {
                    for (JobStatusMessage job : rest.jobs()) {
                        kfp.out.println(job.getJobId() + " " + job.getJobState() + " " + job.getJobName());
                    }
                }
            }
            return 0;
        }
    }

    @Command(name = "logs", mixinStandardHelpOptions = true,
            description = "Where the logs are; for sink: the records it printed so far.")
    static final class Logs implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(paramLabel = "WHAT", description = "sink, ingest, relay, jobmanager or kafka")
        String what;

        @Override
        public Integer call() {
            Path log = kfp.settings().run().resolve("log");
            switch (what) {
                case "sink" -> printTaskManagerStdout(log);
                case "ingest", "relay" -> kfp.out.println("TaskManager logs: " + log
                        + "/taskmanager-*.log (jobs log their configuration and problems there)");
                case "jobmanager" -> kfp.out.println(log.resolve("jobmanager.log"));
                case "kafka" -> kfp.out.println(log.resolve("kafka").resolve("server.log"));
                default -> throw new KfpException("kfp logs sink|ingest|relay|jobmanager|kafka");
            }
            return 0;
        }

        private void printTaskManagerStdout(Path log) {
            if (!Files.isDirectory(log)) {
                return;
            }
            try (Stream<Path> files = Files.list(log)) {
                for (Path file : files.filter(f -> f.getFileName().toString().matches("taskmanager-\\d+\\.out")).sorted().toList()) {
                    kfp.out.print(Files.readString(file, StandardCharsets.UTF_8));
                }
                kfp.out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    JobSubmitter submitter() {
        return new JobSubmitter(settings(), cluster(), environment, out, err);
    }

    private static List<String> withConfig(String config, List<String> options) {
        List<String> args = new ArrayList<>();
        if (config != null) {
            args.addAll(List.of("--config", config));
        }
        args.addAll(options);
        return args;
    }

    /** {@code kfp --version}: the project version the build wrote into kfp.properties. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"kfp " + KfpSettings.projectVersion()};
        }
    }
}
