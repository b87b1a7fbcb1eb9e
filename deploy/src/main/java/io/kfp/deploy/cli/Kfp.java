package io.kfp.deploy.cli;

import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Progress;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.cluster.S3Store;
import io.kfp.deploy.cluster.ZooKeeperServer;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.JobStatusReport;
import io.kfp.deploy.job.JobSubmitter;
import io.kfp.deploy.kafka.KafkaBroker;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.deploy.kafka.Topics;
import io.kfp.deploy.lab.Lab;
import io.kfp.deploy.lab.drill.LabDrill;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.RelayVerifier;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

/**
 * {@code kfp}: this repository's jobs on a standalone Flink 2.2 cluster with a Kafka 4.2 broker,
 * both assembled from Maven artifacts by {@code kfp build}. {@code deploy/bin/kfp} is a thin
 * launcher for this class; {@code kfp help} and {@code kfp COMMAND --help} are generated from the
 * annotations below. Every process it starts is tracked by a PID file and stopped by that PID only.
 */
@Command(
        name = "kfp",
        description =
                "The pipeline's jobs on a standalone Flink cluster and a Kafka broker (all on loopback).",
        synopsisSubcommandLabel = "COMMAND",
        mixinStandardHelpOptions = true,
        // --help on every subcommand too (kfp lab drill --help), not only on those that declare it.
        scope = ScopeType.INHERIT,
        versionProvider = Kfp.Version.class,
        subcommands = {
            HelpCommand.class,
            Kfp.Build.class,
            Kfp.Kafka.class,
            Kfp.Cluster.class,
            Kfp.TaskManager.class,
            Kfp.TopicsCommand.class,
            Kfp.Submit.class,
            Kfp.Acls.class,
            Kfp.TransactionsCommand.class,
            Kfp.Verify.class,
            Kfp.Stop.class,
            Kfp.Resume.class,
            Kfp.Cancel.class,
            Kfp.Status.class,
            Kfp.Logs.class,
            Kfp.LabCommand.class
        },
        footer = {
            "",
            "Runtime files (PIDs, logs, broker data, checkpoints) live in deploy/run (KFP_RUN_DIR).",
            "FLINK_HOME=/path/to/flink-2.2 uses that installation; KAFKA_BOOTSTRAP=host:port an existing Kafka.",
            "Ports: KFP_KAFKA_PORT, KFP_CONTROLLER_PORT, KFP_REST_PORT, KFP_RPC_PORT, KFP_PROM_PORTS;"
                    + " KFP_TASKMANAGERS how many TaskManagers."
        })
public final class Kfp implements Callable<Integer> {

    /**
     * Set by kfp when it runs a command again on the lab's client host: there it must not do so
     * once more.
     */
    public static final String ON_CLIENT_HOST = "KFP_ON_CLIENT_HOST";

    private final Map<String, String> environment;
    private final Path home;
    private final Path callerDir;
    private final PrintStream out;
    private final PrintStream err;
    private KfpSettings settings;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    Kfp(
            Map<String, String> environment,
            Path home,
            Path callerDir,
            PrintStream out,
            PrintStream err) {
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
        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        Path callerDir = Path.of("").toAbsolutePath();
        try {
            KfpSettings settings = KfpSettings.from(System.getenv(), homeDir, callerDir);
            if (settings.topology() != null
                    && settings.topology().launcher() == Topology.Launcher.NETNS
                    && !Lab.inside()
                    && talksToTheCluster(args)) {
                if (System.getenv(ON_CLIENT_HOST) != null) {
                    throw new KfpException(
                            "run on the client host, kfp still finds itself outside the lab's namespaces"
                                    + " (is /run/netns readable?); stopping instead of trying again.",
                            KfpException.FAILED);
                }
                System.exit(onTheClientHost(settings, args));
            }
        } catch (KfpException e) {
            System.err.println("kfp: " + e.getMessage());
            System.exit(e.exitCode());
        }
        System.exit(run(args, System.getenv(), homeDir, callerDir, System.out, System.err));
    }

    /**
     * Whether the command reaches a process of the cluster over the network. In the lab those
     * addresses exist only inside its namespaces, so kfp runs such a command on the topology's
     * client host (the operator's machine); the lab commands and help run where they are called.
     */
    static boolean talksToTheCluster(String[] args) {
        if (args.length == 0) {
            return false;
        }
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            return false;
        }
        if (args[0].equals("lab")) {
            return args.length > 1 && List.of("drill", "soak").contains(args[1]);
        }
        if (args[0].equals("acls")) {
            return List.of(args).contains("--grant");
        }
        return !List.of("help", "-V", "--version", "build", "logs").contains(args[0]);
    }

    /**
     * Runs this same command in the client host's namespace ({@code ip netns exec}); returns its
     * exit code.
     */
    private static int onTheClientHost(KfpSettings settings, String[] args) {
        Topology topology = settings.topology();
        Lab lab = new Lab(topology, System.out);
        lab.requireUp();
        List<String> command = new ArrayList<>(topology.launcherPrefix(topology.client()));
        command.add(settings.javaBin());
        for (String property : List.of("kfp.home", "log4j.configurationFile")) {
            if (System.getProperty(property) != null) {
                command.add("-D" + property + "=" + System.getProperty(property));
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Kfp.class.getName()));
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
            builder.environment().put(ON_CLIENT_HOST, topology.client().name());
            Process process = builder.start();
            return process.waitFor();
        } catch (IOException e) {
            throw new KfpException(
                    "cannot run kfp on the client host "
                            + topology.client().name()
                            + ": "
                            + e.getMessage(),
                    KfpException.FAILED,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KfpException.FAILED;
        }
    }

    /** Runs one kfp command; returns its exit code. */
    static int run(
            String[] args,
            Map<String, String> environment,
            Path home,
            Path callerDir,
            PrintStream out,
            PrintStream err) {
        CommandLine commandLine = commandLine(new Kfp(environment, home, callerDir, out, err));
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.setExecutionExceptionHandler(
                (e, cmd, parsed) -> {
                    if (e instanceof KfpException k) {
                        err.println("kfp: " + k.getMessage());
                        err.flush();
                        return k.exitCode();
                    }
                    // Not foreseen: still one line for the user; the trace when asked for.
                    err.println(
                            "kfp: "
                                    + e.getClass().getSimpleName()
                                    + ": "
                                    + e.getMessage()
                                    + (environment.containsKey("KFP_DEBUG")
                                            ? ""
                                            : " (KFP_DEBUG=1 shows the stack trace)"));
                    if (environment.containsKey("KFP_DEBUG")) {
                        e.printStackTrace(err);
                    }
                    err.flush();
                    return KfpException.FAILED;
                });
        return commandLine.execute(args);
    }

    static CommandLine commandLine(Kfp kfp) {
        CommandLine commandLine = new CommandLine(kfp);
        // "@file" is a job option's value, not a picocli argument file.
        commandLine.setExpandAtFiles(false);
        // Job options (--checkpoint.interval 2s) are passed through to the job as they are.
        commandLine
                .getSubcommands()
                .get("lab")
                .getSubcommands()
                .get("exec")
                .setUnmatchedOptionsArePositionalParams(true);
        commandLine
                .getSubcommands()
                .get("lab")
                .getSubcommands()
                .get("exec")
                .setStopAtPositional(true);
        for (String name : List.of("submit", "resume", "acls")) {
            commandLine.getSubcommands().get(name).setUnmatchedOptionsArePositionalParams(true);
        }
        // Help says where things are with the settings in force, when they are valid.
        try {
            KfpSettings settings = kfp.settings();
            Topology topology = settings.topology();
            describe(
                    commandLine,
                    "kafka",
                    settings.externalKafka()
                            ? "KAFKA_BOOTSTRAP="
                                    + settings.bootstrap()
                                    + " is used: kfp starts no broker."
                            : topology == null
                                    ? "Single-node KRaft broker on " + settings.bootstrap() + "."
                                    : "KRaft cluster of "
                                            + topology.with(Topology.Role.KAFKA).size()
                                            + " nodes on "
                                            + settings.bootstrap()
                                            + ".");
            describe(
                    commandLine,
                    "cluster",
                    (topology == null
                                    ? "JobManager"
                                    : topology.with(Topology.Role.JOBMANAGER).size()
                                            + " JobManagers (high availability)")
                            + " + "
                            + settings.taskManagers()
                            + " TaskManagers; Web UI "
                            + settings.restUrl()
                            + ".");
            if (topology != null) {
                commandLine
                        .getCommandSpec()
                        .usageMessage()
                        .description(
                                "The pipeline's jobs on a standalone Flink cluster and a Kafka"
                                        + " cluster on the hosts of the topology "
                                        + topology.name()
                                        + " (KFP_TOPOLOGY).");
            }
            String[] footer = commandLine.getCommandSpec().usageMessage().footer().clone();
            footer[1] =
                    "Runtime files (PIDs, logs, broker data, checkpoints) live in "
                            + settings.run()
                            + " (KFP_RUN_DIR).";
            setFooter(commandLine, footer);
        } catch (KfpException invalid) {
            // Reported when a command runs; help stays general.
        }
        return commandLine;
    }

    /** On every command: picocli gives subcommands the footer they were declared with. */
    private static void setFooter(CommandLine commandLine, String[] footer) {
        commandLine.getCommandSpec().usageMessage().footer(footer);
        commandLine.getSubcommands().values().forEach(sub -> setFooter(sub, footer));
    }

    private static void describe(CommandLine commandLine, String command, String description) {
        commandLine
                .getSubcommands()
                .get(command)
                .getCommandSpec()
                .usageMessage()
                .description(description);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return 0;
    }

    public PrintStream out() {
        return out;
    }

    public Map<String, String> environment() {
        return environment;
    }

    public KfpSettings settings() {
        if (settings == null) {
            settings = KfpSettings.from(environment, home, callerDir);
        }
        return settings;
    }

    public KafkaBroker kafka() {
        return new KafkaBroker(settings(), out, err);
    }

    public FlinkCluster cluster() {
        return new FlinkCluster(settings(), out, err);
    }

    public FlinkRest rest() {
        requireLabNetwork();
        if (clusterConfig == null) {
            // Once per command: kfp status --watch must not rewrite the cluster's files every
            // screen.
            clusterConfig = cluster().writeConf();
        }
        return FlinkRest.connect(clusterConfig);
    }

    private org.apache.flink.configuration.Configuration clusterConfig;

    /**
     * In the lab, the cluster's addresses exist only inside its namespaces: never dial them from
     * outside.
     */
    public void requireLabNetwork() {
        Topology topology = settings().topology();
        if (topology != null && topology.launcher() == Topology.Launcher.NETNS) {
            Lab.requireInside(topology.subnet());
        }
    }

    public Lab lab() {
        if (settings().topology() == null) {
            throw new KfpException(
                    "no topology: the lab commands need one, e.g. export KFP_TOPOLOGY=lab"
                            + " (deploy/conf/topology/lab.yaml).");
        }
        return new Lab(settings().topology(), out);
    }

    /**
     * Where kfp's own classes are, for the cluster's JVMs (our Prometheus reporter) and Flink's CLI
     * (our job listener).
     */
    public static String ownClasspath(KfpSettings settings) {
        Path classes = settings.home().resolve("target").resolve("classes");
        Path jar = settings.dist().resolve("kfp").resolve("kfp.jar");
        return Files.isDirectory(classes) ? classes + ":" + jar : jar.toString();
    }

    /**
     * The prefix kfp transactions works on: exactly one of a job (ingest, relay; its config file)
     * or a prefix given as it is.
     */
    String transactionalIdPrefix(String job, String config, String prefix) {
        if ((job == null) == (prefix == null)) {
            throw new KfpException(
                    "name a job (ingest or relay) or give --prefix PREFIX, not "
                            + (job == null ? "neither" : "both")
                            + ".");
        }
        if (prefix != null) {
            return prefix;
        }
        DeployedJob deployed = DeployedJob.of(job);
        if (deployed.name().equals("sink")) {
            throw new KfpException(
                    "sink-job writes no Kafka transactions (it prints what it reads): use ingest or relay.");
        }
        Path file =
                config == null
                        ? deployed.defaultConfig(settings())
                        : Path.of(settings().absolute(config));
        return transactionalIds(deployed.settings(file, environment));
    }

    /**
     * What every transactional id of a job with {@code config} starts with: the connector names
     * them PREFIX-SUBTASK-N, and the dash keeps another job's longer prefix out.
     */
    public static String transactionalIds(org.apache.flink.configuration.Configuration config) {
        return KafkaSinkOptions.transactionalIdPrefix(config) + "-";
    }

    /**
     * Each writing job running on the cluster (by the name its config gives it) and its
     * transactional id prefix; none when no JobManager answers.
     */
    Map<String, String> runningPrefixes() {
        Map<String, String> running = new java.util.TreeMap<>();
        if (!cluster().anyJobManagerAnswers()) {
            return running;
        }
        try (FlinkRest rest = rest()) {
            List<JobStatusMessage> jobs = rest.jobs();
            for (String name : List.of("ingest", "relay")) {
                DeployedJob deployed = DeployedJob.of(name);
                Path file = deployed.defaultConfig(settings());
                if (!Files.isRegularFile(file)) {
                    continue;
                }
                org.apache.flink.configuration.Configuration config =
                        deployed.settings(file, environment);
                String jobName = config.get(io.kfp.common.config.JobOptions.NAME);
                if (!FlinkRest.notEnded(jobs, jobName).isEmpty()) {
                    running.put(jobName, transactionalIds(config));
                }
            }
        }
        return running;
    }

    /** The Flink job name of {@code job}, from its config file (job.name). */
    String jobName(DeployedJob job) {
        return job.jobName(job.defaultConfig(settings()), environment);
    }

    // --- commands ----------------------------------------------------------------------------

    @Command(
            name = "build",
            mixinStandardHelpOptions = true,
            description =
                    "Build the job jars, the Flink cluster and the broker (Maven; deploy/bin/kfp runs it before this CLI exists).")
    static final class Build implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new KfpException(
                    "'kfp build' is run by deploy/bin/kfp itself (mvn package): call deploy/bin/kfp build.");
        }
    }

    @Command(
            name = "kafka",
            mixinStandardHelpOptions = true,
            description =
                    "Single-node KRaft broker on 127.0.0.1 (KFP_KAFKA_PORT, 9092 by default).")
    static final class Kafka {
        @ParentCommand Kfp kfp;

        @Command(
                name = "start",
                description = "Format its storage the first time, start it, wait until it answers.")
        void start(
                @Option(
                                names = "--secure",
                                description = {
                                    "the first time: a broker that authenticates (SASL_SSL, SCRAM-SHA-512 users",
                                    "admin, ingest, relay, sink) and authorizes (ACLs; kfp acls JOB --grant); kfp submit then gives each job its user.",
                                    "Certificates and passwords are made in KFP_RUN_DIR/kafka-security. A broker formatted so stays so."
                                })
                        boolean secure) {
            kfp.kafka().start(secure);
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

    @Command(
            name = "cluster",
            mixinStandardHelpOptions = true,
            description =
                    "JobManager + TaskManagers (KFP_TASKMANAGERS, 3 by default); Web UI on 127.0.0.1 (KFP_REST_PORT, 8081).")
    static final class Cluster {
        @ParentCommand Kfp kfp;

        @Command(
                name = "start",
                description =
                        "Start the JobManager and the TaskManagers; wait until all are registered.")
        void start(
                @Option(
                                names = "--tls",
                                description = {
                                    "in a topology, the first time: TLS between Flink's processes and a REST API",
                                    "that answers only clients with the cluster's certificate (kfp holds it). It stays so until KFP_RUN_DIR/flink-tls is removed."
                                })
                        boolean tls) {
            kfp.cluster().start(tls);
        }

        @Command(
                name = "stop",
                description = "Stop every TaskManager, then the JobManager, by PID.")
        void stop() {
            kfp.cluster().stop();
        }

        @Command(
                name = "status",
                description = "Processes, and how many TaskManagers are registered.")
        void status() {
            kfp.cluster().status();
        }
    }

    @Command(
            name = "taskmanager",
            mixinStandardHelpOptions = true,
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

    @Command(
            name = "topics",
            mixinStandardHelpOptions = true,
            description = "Kafka topics of the jobs.")
    static final class TopicsCommand {
        @ParentCommand Kfp kfp;

        @Command(
                name = "create",
                description =
                        "Create the topics named in deploy/conf/jobs/*.yaml (4 partitions each).")
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
            kfp.requireLabNetwork();
            int brokers =
                    settings.topology() == null
                            ? 1
                            : settings.topology().with(Topology.Role.KAFKA).size();
            new Topics(settings, kfp.out)
                    .create(topics, Topics.PARTITIONS, (short) Math.min(3, brokers));
        }
    }

    @Command(
            name = "submit",
            mixinStandardHelpOptions = true,
            description = {
                "Submit ingest, relay or sink detached; prints the job id.",
                "Its options come from deploy/conf/jobs/JOB.yaml (or --config FILE); any --key value after JOB overrides them.",
                "Each job's README lists its options (ingest-job/README.md, relay-job/README.md, sink-job/README.md)."
            })
    static final class Submit implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Mixin JobArguments job;

        @Override
        public Integer call() {
            kfp.submitter().submit(job.deployed(), job.args());
            return 0;
        }
    }

    /** JOB, --config FILE and the job options after JOB: what submit, resume and acls take. */
    static final class JobArguments {
        @Parameters(index = "0", paramLabel = "JOB", description = "ingest, relay or sink")
        String job;

        @Option(
                names = "--config",
                paramLabel = "FILE",
                description = "the job's config file instead of deploy/conf/jobs/JOB.yaml")
        String config;

        @Parameters(
                index = "1..*",
                paramLabel = "--key value",
                description =
                        "job options overriding the file (the job's --help lists them; e.g. --job.parallelism 3 to rescale)")
        List<String> options = new ArrayList<>();

        DeployedJob deployed() {
            return DeployedJob.of(job);
        }

        /** The job's command line: {@code --config FILE} if given, then the options. */
        List<String> args() {
            List<String> args = new ArrayList<>();
            if (config != null) {
                args.addAll(List.of("--config", config));
            }
            args.addAll(options);
            return args;
        }
    }

    @Command(
            name = "acls",
            mixinStandardHelpOptions = true,
            description = {
                "Print the kafka-acls.sh lines that grant a job's Kafka user exactly what it needs.",
                "Computed by the job itself from deploy/conf/jobs/JOB.yaml (or --config FILE) and any --key value after JOB,",
                "as kfp submit would run it: its topics, consumer group and transactional id prefix. Needs no cluster."
            })
    static final class Acls implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Mixin JobArguments job;

        @Option(
                names = "--principal",
                paramLabel = "TYPE:NAME",
                description = "the job's Kafka user (default User:JOB)")
        String principal;

        @Option(
                names = "--grant",
                description =
                        "create them on kfp's secure broker (kfp kafka start --secure), as its admin user, with Kafka's kafka-acls.sh")
        boolean grant;

        @Override
        public Integer call() {
            DeployedJob deployed = job.deployed();
            String user = principal != null ? principal : "User:" + deployed.name();
            if (grant) {
                kfp.requireLabNetwork();
                kfp.submitter().grantAcls(deployed, job.args(), user);
            } else {
                kfp.submitter().printAcls(deployed, job.args(), user);
            }
            return 0;
        }
    }

    @Command(
            name = "transactions",
            mixinStandardHelpOptions = true,
            description = {
                "Kafka transactions of a job's transactional id prefix (ingest, relay) or of any --prefix.",
                "An open one holds back the last stable offset of every partition it wrote to: read_committed readers (the next"
                        + " job, the sink) see nothing newer there until it ends - by its producer, at its timeout, or by 'abort'."
            })
    static final class TransactionsCommand {
        /** What both subcommands aim at: a job's prefix, from its config, or one given as it is. */
        static final class Target {
            @Parameters(
                    arity = "0..1",
                    paramLabel = "JOB",
                    description = "ingest or relay: the prefix it runs with from its config")
            String job;

            @Option(
                    names = "--config",
                    paramLabel = "FILE",
                    description = "the job's config file instead of deploy/conf/jobs/JOB.yaml")
            String config;

            @Option(
                    names = "--prefix",
                    paramLabel = "PREFIX",
                    description = "any transactional id prefix instead of a job's")
            String prefix;
        }

        @ParentCommand Kfp kfp;

        @Command(
                name = "list",
                mixinStandardHelpOptions = true,
                description = {
                    "List the open transactions (--all: in every state).",
                    "Each with its state, age, producer id and epoch, and the partitions whose last stable offset it holds back."
                })
        void list(
                @Mixin Target target,
                @Option(
                                names = "--all",
                                description =
                                        "also the ended ones (CompleteCommit, CompleteAbort, Empty, ...)")
                        boolean all) {
            String of = kfp.transactionalIdPrefix(target.job, target.config, target.prefix);
            kfp.requireLabNetwork();
            try (Admin admin = Topics.admin(kfp.settings())) {
                KafkaTransactions transactions = new KafkaTransactions(admin, kfp.out);
                transactions.print(of, transactions.list(of, all), all);
            }
        }

        @Command(
                name = "abort",
                mixinStandardHelpOptions = true,
                description = {
                    "Abort the open (Ongoing) transactions of the prefix.",
                    "Fences their transactional ids (Admin.fenceProducers): the broker aborts what is open and refuses a producer"
                            + " still using an id from then on. Refused while a job running on the cluster writes with that prefix"
                            + " (its checkpoint would fail and it would restart), unless --force."
                })
        void abort(
                @Mixin Target target,
                @Option(
                                names = "--older-than",
                                paramLabel = "DURATION",
                                description =
                                        "only transactions open at least this long, e.g. '15 min' (default: every open one)")
                        String olderThan,
                @Option(
                                names = "--force",
                                description =
                                        "abort even while a running job of the cluster writes with the prefix")
                        boolean force) {
            String of = kfp.transactionalIdPrefix(target.job, target.config, target.prefix);
            Duration minimumAge = Duration.ZERO;
            if (olderThan != null) {
                try {
                    minimumAge = org.apache.flink.util.TimeUtils.parseDuration(olderThan);
                } catch (IllegalArgumentException e) {
                    throw new KfpException(
                            "--older-than '"
                                    + olderThan
                                    + "' is not a duration: use e.g. '90 s' or '15 min'.");
                }
            }
            kfp.requireLabNetwork();
            List<String> owners = KafkaTransactions.owners(of, kfp.runningPrefixes());
            if (!owners.isEmpty() && !force) {
                throw new KfpException(
                        String.join(", ", owners)
                                + " is running on the cluster and writes transactions of prefix "
                                + of
                                + ": aborting them fails its checkpoint and restarts it. Stop it first (kfp stop JOB), or add --force.");
            }
            try (Admin admin = Topics.admin(kfp.settings())) {
                KafkaTransactions transactions = new KafkaTransactions(admin, kfp.out);
                List<KafkaTransactions.Transaction> open = transactions.list(of, false);
                if (transactions.abort(open, minimumAge).isEmpty()) {
                    kfp.out.println(
                            "nothing to abort: no Ongoing transaction of prefix "
                                    + of
                                    + (minimumAge.isZero()
                                            ? ""
                                            : " open for at least "
                                                    + org.apache.flink.util.TimeUtils
                                                            .formatWithHighestUnit(minimumAge)));
                }
            }
        }
    }

    @Command(
            name = "verify",
            mixinStandardHelpOptions = true,
            description = {
                "Check that a relay's output topic holds each record of its input topic exactly once, byte for byte"
                        + " (key, value, headers, timestamp); both read read_committed. Partitions and order are not compared.",
                "Prints how many input records are there once, and the missing, duplicated, altered (same key and timestamp,"
                        + " other value or headers) and unexpected ones, each with its first examples as topic-partition@offset."
                        + " Exit code 0 when clean, 1 when not, 2 when it could not check.",
                "Run it once the relay has caught up (or is stopped): records it has not copied yet count as missing;"
                        + " --until or --from-offsets leave them out.",
                "Memory: at most --in-memory records at once (about 48 bytes each); more are spread over bucket files under the"
                        + " run directory (28 bytes a record), removed at the end.",
                "Example: kfp verify --from lines --to relayed --since '30 min'"
            })
    static final class Verify implements Callable<Integer> {
        /** As diff and cmp do: 1 when the output differs, 2 when it could not be checked. */
        static final int NOT_CLEAN = 1;

        static final int CANNOT_VERIFY = 2;

        @ParentCommand Kfp kfp;

        @Option(
                names = "--from",
                required = true,
                paramLabel = "TOPIC",
                description = "the relay's input topic")
        String from;

        @Option(
                names = "--to",
                required = true,
                paramLabel = "TOPIC",
                description = "the relay's output topic")
        String to;

        @Option(
                names = "--since",
                paramLabel = "TIME",
                description =
                        "only records with a timestamp at or after TIME, in both topics:"
                                + " an instant (2026-12-02T04:00:00Z) or how long ago ('30 min')")
        String since;

        @Option(
                names = "--until",
                paramLabel = "TIME",
                description = "only records with a timestamp before TIME, in both topics")
        String until;

        @Option(
                names = "--from-offsets",
                paramLabel = "RANGES",
                description =
                        "only these partitions and offsets of the input:"
                                + " PARTITION:START[-END],... (END exclusive; none: to the end), e.g. 0:1200-5000,1:1180")
        String fromOffsets;

        @Option(
                names = "--to-offsets",
                paramLabel = "RANGES",
                description = "the same for the output")
        String toOffsets;

        @Option(
                names = "--examples",
                paramLabel = "N",
                defaultValue = "5",
                description = "examples shown of each kind (default: ${DEFAULT-VALUE})")
        int examples;

        @Option(
                names = "--in-memory",
                paramLabel = "RECORDS",
                defaultValue = "" + RelayVerifier.DEFAULT_BUCKET_ENTRIES,
                description = "records held in memory at once (default: ${DEFAULT-VALUE})")
        int inMemory;

        @Override
        public Integer call() {
            if (from.equals(to)) {
                throw new KfpException(
                        "--from and --to are both "
                                + from
                                + ": name the relay's input and its output topic.");
            }
            if (inMemory < 1 || examples < 0) {
                throw new KfpException(
                        "--in-memory must be at least 1 and --examples at least 0, not "
                                + inMemory
                                + " and "
                                + examples
                                + ".");
            }
            long now = System.currentTimeMillis();
            Long sinceMs = since == null ? null : instant("--since", since, now);
            Long untilMs = until == null ? null : instant("--until", until, now);
            kfp.requireLabNetwork();
            RelayVerifier verifier =
                    new RelayVerifier(
                            kfp.settings().kafkaClient(),
                            kfp.settings().run().resolve("verify"),
                            inMemory,
                            examples,
                            kfp.out);
            CopyReport verdict;
            try {
                verdict =
                        verifier.verify(
                                from,
                                range("--from-offsets", fromOffsets, sinceMs, untilMs),
                                to,
                                range("--to-offsets", toOffsets, sinceMs, untilMs));
            } catch (IllegalArgumentException
                    | IllegalStateException
                    | org.apache.kafka.common.KafkaException
                    | java.io.UncheckedIOException e) {
                throw new KfpException(
                        "cannot verify "
                                + from
                                + " -> "
                                + to
                                + " on "
                                + kfp.settings().bootstrap()
                                + ": "
                                + e.getMessage(),
                        CANNOT_VERIFY,
                        e);
            }
            verdict.print(kfp.out);
            return verdict.clean() ? 0 : NOT_CLEAN;
        }

        private static RelayVerifier.Range range(
                String option, String offsets, Long sinceMs, Long untilMs) {
            if (offsets == null) {
                return RelayVerifier.Range.between(sinceMs, untilMs);
            }
            try {
                return new RelayVerifier.Range(
                        sinceMs, untilMs, RelayVerifier.Range.parseOffsets(offsets).offsets());
            } catch (IllegalArgumentException e) {
                throw new KfpException(option + " " + e.getMessage() + ".");
            }
        }

        /** An ISO-8601 instant, or a duration before {@code now}. */
        static long instant(String option, String value, long now) {
            try {
                return java.time.Instant.parse(value).toEpochMilli();
            } catch (java.time.format.DateTimeParseException notAnInstant) {
                try {
                    return now - org.apache.flink.util.TimeUtils.parseDuration(value).toMillis();
                } catch (IllegalArgumentException notADuration) {
                    throw new KfpException(
                            option
                                    + " '"
                                    + value
                                    + "' is neither an instant (2026-12-02T04:00:00Z) nor how long ago ('30 min').");
                }
            }
        }
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description = "Stop a job with a savepoint; prints the savepoint's path.")
    static final class Stop implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(paramLabel = "JOB", description = "ingest, relay or sink")
        String job;

        @Option(
                names = "--savepoint",
                paramLabel = "DIR",
                description = "where to write it (default: the job's checkpoint.savepoint-dir)")
        String savepoint;

        @Override
        public Integer call() {
            DeployedJob deployed = DeployedJob.of(job);
            try (FlinkRest rest = kfp.rest()) {
                JobID id = rest.runningJob(kfp.jobName(deployed));
                kfp.out.println(
                        rest.stopWithSavepoint(
                                id, savepoint == null ? null : kfp.settings().absolute(savepoint)));
            }
            return 0;
        }
    }

    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            description =
                    "Submit a job again, starting from a savepoint or retained checkpoint; prints the job id.")
    static final class Resume implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Mixin JobArguments job;

        @Option(
                names = "--from",
                required = true,
                paramLabel = "PATH",
                description = "the savepoint or retained checkpoint (.../savepoint-..., .../chk-N)")
        String from;

        @Override
        public Integer call() {
            List<String> args = new ArrayList<>(List.of("--checkpoint.restore-from", from));
            args.addAll(job.args());
            kfp.submitter().submit(job.deployed(), args);
            return 0;
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description =
                    "Cancel a job (its last checkpoint is retained: kfp resume JOB --from .../chk-N).")
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

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = {
                "Processes and ports, then each job (or JOB): its state, uptime and restarts, its last checkpoint (age,"
                        + " duration, size), records in and out per second, the true lag of its consumer group on each input partition,"
                        + " and its open Kafka transactions with their age and the partitions whose last stable offset they hold back.",
                "Lag is counted in records a read_committed reader would still get: transaction markers and aborted records,"
                        + " which take offsets but hold none, are not lag. A job's topics, group and transactional id prefix come from"
                        + " its config file (deploy/conf/jobs/JOB.yaml), as kfp submit runs it."
            })
    static final class Status implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(
                arity = "0..1",
                paramLabel = "JOB",
                description = "ingest, relay or sink (default: every job with a config file)")
        String job;

        static final Duration RATE_WINDOW = Duration.ofSeconds(10);

        @Option(
                names = "--watch",
                description =
                        "redraw every --interval like top, until Ctrl-C; in a pipe, each screen follows the last")
        boolean watch;

        @Option(
                names = "--interval",
                paramLabel = "DURATION",
                defaultValue = "2 s",
                description = "between two screens (default: ${DEFAULT-VALUE})")
        String interval;

        @Option(
                names = "--screens",
                paramLabel = "N",
                defaultValue = "0",
                description = "with --watch: stop after N screens (default: until Ctrl-C)")
        int screens;

        @Override
        public Integer call() {
            List<String> jobs = job == null ? List.of() : List.of(DeployedJob.of(job).name());
            Duration every;
            try {
                every = org.apache.flink.util.TimeUtils.parseDuration(interval);
            } catch (IllegalArgumentException e) {
                throw new KfpException(
                        "--interval '" + interval + "' is not a duration: use e.g. '2 s'.");
            }
            kfp.requireLabNetwork();
            if (!watch) {
                if (job == null) {
                    kfp.kafka().status();
                    kfp.cluster().status();
                }
                JobStatusReport.gatherAll(kfp, jobs).print(Map.of(), kfp.out);
                return 0;
            }
            // On a terminal each screen replaces the last (like top); in a pipe no control codes,
            // one screen after the other.
            boolean terminal = Progress.onTerminal();
            // Rates over the last 10 s or so of screens: steadier than between two screens 2 s
            // apart.
            Map<String, java.util.ArrayDeque<JobStatusReport.View>> history =
                    new java.util.HashMap<>();
            for (int screen = 1; screens == 0 || screen <= screens; screen++) {
                java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
                PrintStream frame = new PrintStream(buffer, true, StandardCharsets.UTF_8);
                frame.printf(
                        java.util.Locale.ROOT,
                        "kfp status - %s, every %s%s%n",
                        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
                        org.apache.flink.util.TimeUtils.formatWithHighestUnit(every),
                        terminal ? " (Ctrl-C to stop)" : "");
                try {
                    JobStatusReport.Screen now = JobStatusReport.gatherAll(kfp, jobs);
                    Map<String, JobStatusReport.View> earlier = new java.util.HashMap<>();
                    for (JobStatusReport.View v : now.views()) {
                        java.util.ArrayDeque<JobStatusReport.View> views =
                                history.computeIfAbsent(v.job(), k -> new java.util.ArrayDeque<>());
                        while (views.size() > 1
                                && v.atMs() - views.peekFirst().atMs() > RATE_WINDOW.toMillis()) {
                            views.removeFirst();
                        }
                        if (!views.isEmpty()) {
                            earlier.put(v.job(), views.peekFirst());
                        }
                        views.addLast(v);
                    }
                    now.print(earlier, frame);
                } catch (RuntimeException e) {
                    // A JobManager failing over or a broker restarting is what one watches for: say
                    // so, keep watching.
                    frame.println("kfp: " + e.getMessage());
                }
                kfp.out.print(
                        terminal
                                ? "\033[H\033[2J" + buffer.toString(StandardCharsets.UTF_8)
                                : buffer.toString(StandardCharsets.UTF_8) + System.lineSeparator());
                kfp.out.flush();
                if (kfp.out.checkError()) {
                    // The reader went away (| head, a closed terminal): nobody is watching any
                    // more.
                    return 0;
                }
                if (screens == 0 || screen < screens) {
                    Processes.sleep(every);
                }
            }
            return 0;
        }
    }

    @Command(
            name = "logs",
            mixinStandardHelpOptions = true,
            description = "Where the logs are; for sink: the records it printed so far.")
    static final class Logs implements Callable<Integer> {
        @ParentCommand Kfp kfp;

        @Parameters(paramLabel = "WHAT", description = "sink, ingest, relay, jobmanager or kafka")
        String what;

        @Override
        public Integer call() {
            KfpSettings settings = kfp.settings();
            List<Path> logs = new ArrayList<>();
            if (settings.topology() == null) {
                logs.add(settings.run().resolve("log"));
            } else {
                settings.topology()
                        .hosts()
                        .forEach(h -> logs.add(settings.hostRun(h).resolve("log")));
            }
            switch (what) {
                case "sink" -> logs.forEach(this::printTaskManagerStdout);
                case "ingest", "relay" ->
                        logs.forEach(
                                log ->
                                        kfp.out.println(
                                                "TaskManager logs: "
                                                        + log
                                                        + "/taskmanager-*.log (jobs log their configuration and problems there)"));
                // On one host the path, started or not; in a topology the hosts that have one.
                case "jobmanager" ->
                        logs.stream()
                                .map(l -> l.resolve("jobmanager.log"))
                                .filter(p -> settings.topology() == null || Files.exists(p))
                                .forEach(kfp.out::println);
                case "kafka" ->
                        logs.stream()
                                .map(l -> l.resolve("kafka").resolve("server.log"))
                                .filter(p -> settings.topology() == null || Files.exists(p))
                                .forEach(kfp.out::println);
                default -> throw new KfpException("kfp logs sink|ingest|relay|jobmanager|kafka");
            }
            return 0;
        }

        private void printTaskManagerStdout(Path log) {
            if (!Files.isDirectory(log)) {
                return;
            }
            try (Stream<Path> files = Files.list(log)) {
                for (Path file :
                        files.filter(
                                        f ->
                                                f.getFileName()
                                                        .toString()
                                                        .matches("taskmanager-\\d+\\.out"))
                                .sorted()
                                .toList()) {
                    // Flink's own JVM warnings share the file with what the sink printed.
                    Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                            .filter(l -> !l.startsWith("WARNING: "))
                            .forEach(kfp.out::println);
                }
                kfp.out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public JobSubmitter submitter() {
        requireLabNetwork();
        return new JobSubmitter(settings(), cluster(), environment, out, err);
    }

    @Command(
            name = "lab",
            mixinStandardHelpOptions = true,
            description = {
                "Several hosts on this machine: a network namespace per host of KFP_TOPOLOGY (root needed).",
                "Commands that talk to the cluster (kafka, cluster, topics, submit, stop, ...) run on its client host by themselves."
            })
    static final class LabCommand {
        @ParentCommand Kfp kfp;

        @Command(
                name = "up",
                description =
                        "Create the hosts: one namespace each, joined by a bridge in a namespace of its own.")
        void up() {
            kfp.lab().up();
        }

        @Command(
                name = "down",
                description =
                        "Stop every process of the lab by its PID, then remove every namespace it made.")
        void down() {
            Lab lab = kfp.lab();
            Lab.requireRoot();
            // TaskManagers before JobManagers before the stores they write to; each group at once
            // (a Kafka node stopped after the others would wait for a quorum that is gone).
            record Tracked(Processes processes, String name) {}
            List<Tracked> all = new ArrayList<>();
            for (Topology.Host host : kfp.settings().topology().hosts()) {
                Processes processes = kfp.settings().processes(host, kfp.out, kfp.err);
                processes.tracked("").forEach(name -> all.add(new Tracked(processes, name)));
            }
            all.stream()
                    .collect(
                            java.util.stream.Collectors.groupingBy(
                                    t -> stopOrder(t.name()),
                                    java.util.TreeMap::new,
                                    java.util.stream.Collectors.toList()))
                    // Everything goes: no broker needs to hand over leadership, so 10 s of grace is
                    // plenty.
                    .values()
                    .forEach(
                            group ->
                                    Processes.allAtOnce(
                                            group,
                                            t ->
                                                    t.processes()
                                                            .stop(
                                                                    t.name(),
                                                                    Duration.ofSeconds(10))));
            lab.down();
        }

        @Command(
                name = "exec",
                description = {
                    "Run a command on HOST, e.g. a line source for ingest-job:",
                    "kfp lab exec operator nc -lk 198.18.0.100 9999"
                })
        int exec(
                @Parameters(index = "0", paramLabel = "HOST") String host,
                @Parameters(index = "1..*", paramLabel = "COMMAND") List<String> command)
                throws Exception {
            kfp.lab().requireUp();
            List<String> full =
                    new ArrayList<>(
                            kfp.settings()
                                    .topology()
                                    .launcherPrefix(kfp.settings().topology().host(host)));
            full.addAll(command);
            return new ProcessBuilder(full).inheritIO().start().waitFor();
        }

        @Command(
                name = "partition",
                description = "Cut HOST off the network (its link down) until 'kfp lab heal HOST'.")
        void partition(@Parameters(paramLabel = "HOST") String host) {
            kfp.lab().partition(kfp.settings().topology().host(host));
        }

        @Command(name = "heal", description = "Put HOST back on the network.")
        void heal(@Parameters(paramLabel = "HOST") String host) {
            kfp.lab().heal(kfp.settings().topology().host(host));
        }

        @Command(
                name = "drill",
                description = {
                    "The relay through the fault matrix, exactly once: prints each fault's recovery and the verdict.",
                    "Needs the lab up with Kafka and the cluster started; exit code 0 only when the output is exactly once."
                })
        int drill(
                @Option(
                                names = "--faults",
                                defaultValue = "matrix",
                                paramLabel = "LIST",
                                description =
                                        "matrix (all, in order) or a comma-separated list of kill-leader-broker, kill-coordinator,"
                                                + " rolling-restart, kill-leader-jobmanager, kill-taskmanager, partition-taskmanager,"
                                                + " partition-leader-broker, s3-outage, rescale-up, rescale-down")
                        String faults,
                @Option(
                                names = "--records",
                                defaultValue = "300000",
                                description =
                                        "produce at least this many (default ${DEFAULT-VALUE})")
                        long records,
                @Option(
                                names = "--rate",
                                defaultValue = "1000",
                                description = "records per second (default ${DEFAULT-VALUE})")
                        int rate,
                @Parameters(
                                paramLabel = "RELAY-OPTION",
                                arity = "0..*",
                                description = RELAY_OPTIONS)
                        List<String> relayOptions)
                throws Exception {
            return new LabDrill(kfp, orEmpty(relayOptions))
                            .run(LabDrill.parse(faults), records, rate)
                            .clean()
                    ? 0
                    : KfpException.FAILED;
        }

        @Command(
                name = "soak",
                description =
                        "The drill with faults drawn at random from the matrix, at least --records records.")
        int soak(
                @Option(
                                names = "--faults",
                                defaultValue = "12",
                                description = "how many faults (default ${DEFAULT-VALUE})")
                        int count,
                @Option(
                                names = "--records",
                                defaultValue = "1000000",
                                description = "at least this many (default ${DEFAULT-VALUE})")
                        long records,
                @Option(
                                names = "--rate",
                                defaultValue = "3000",
                                description = "records per second (default ${DEFAULT-VALUE})")
                        int rate,
                @Option(
                                names = "--seed",
                                defaultValue = "1",
                                description = "of the random draw (default ${DEFAULT-VALUE})")
                        long seed,
                @Option(
                                names = "--warm-up",
                                defaultValue = "2 min",
                                paramLabel = "DURATION",
                                description =
                                        "the relay runs this long before the first fault, so the lab's fresh JVMs are done compiling (default ${DEFAULT-VALUE}; 0 s for none)")
                        String warmUp,
                @Parameters(
                                paramLabel = "RELAY-OPTION",
                                arity = "0..*",
                                description = RELAY_OPTIONS)
                        List<String> relayOptions)
                throws Exception {
            Duration wait;
            try {
                wait = TimeUtils.parseDuration(warmUp);
            } catch (IllegalArgumentException e) {
                throw new KfpException(
                        "--warm-up "
                                + warmUp
                                + " is not a duration: write a number with a unit, e.g. 90 s or 2 min.");
            }
            List<LabDrill.Fault> faults = LabDrill.random(count, seed);
            kfp.out.println("soak: " + faults.stream().map(LabDrill.Fault::label).toList());
            return new LabDrill(kfp, orEmpty(relayOptions)).run(faults, records, rate, wait).clean()
                    ? 0
                    : KfpException.FAILED;
        }

        private static final String RELAY_OPTIONS =
                "after --: relay options to try under the faults, after the drill's own"
                        + " (e.g. -- --kafka.properties.request.timeout.ms 10000)";

        private static List<String> orEmpty(List<String> options) {
            return options == null ? List.of() : options;
        }

        @Command(
                name = "kill",
                description =
                        "kill -9 a process on HOST: kafka, zookeeper, jobmanager or taskmanager-N.")
        void kill(
                @Parameters(paramLabel = "HOST") String host,
                @Parameters(paramLabel = "PROCESS") String process) {
            kfp.lab().requireUp();
            Topology.Host where = kfp.settings().topology().host(host);
            if (!kfp.settings().processes(where, kfp.out, kfp.err).kill(process)) {
                throw new KfpException(
                        "no process "
                                + process
                                + " runs on "
                                + host
                                + " ('kfp status' lists them).",
                        KfpException.FAILED);
            }
        }
    }

    /** Teardown order: what writes first, what is written to last. */
    static int stopOrder(String process) {
        if (process.startsWith(FlinkCluster.TASKMANAGER)) {
            return 0;
        }
        return switch (process) {
            case FlinkCluster.JOBMANAGER -> 1;
            case ZooKeeperServer.NAME -> 2;
            case KafkaBroker.NAME -> 3;
            case S3Store.NAME -> 4;
            default -> 5;
        };
    }

    /** {@code kfp --version}: the project version the build wrote into kfp.properties. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"kfp " + KfpSettings.projectVersion()};
        }
    }
}
