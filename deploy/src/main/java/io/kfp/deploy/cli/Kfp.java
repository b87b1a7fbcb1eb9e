package io.kfp.deploy.cli;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Topology;
import io.kfp.deploy.lab.Lab;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
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
            BuildCommand.class,
            KafkaCommand.class,
            ClusterCommand.class,
            TaskManagerCommand.class,
            JobsCommand.class,
            NewJobCommand.class,
            TopicsCommand.class,
            SubmitCommand.class,
            AclsCommand.class,
            TransactionsCommand.class,
            VerifyCommand.class,
            StopCommand.class,
            ResumeCommand.class,
            UpgradeCommand.class,
            SavepointsCommand.class,
            CancelCommand.class,
            StatusCommand.class,
            LogsCommand.class,
            MonitoringCommand.class,
            LabCommand.class
        },
        footer = {
            "",
            "Runtime files (PIDs, logs, broker data, checkpoints) live in deploy/run (KFP_RUN_DIR).",
            "FLINK_HOME=/path/to/flink-2.2 uses that installation; KAFKA_BOOTSTRAP=host:port an existing Kafka.",
            "Ports: KFP_KAFKA_PORT, KFP_CONTROLLER_PORT, KFP_REST_PORT, KFP_RPC_PORT, KFP_PROM_PORTS;"
                    + " KFP_TASKMANAGERS how many TaskManagers.",
            "KFP_JVM_OPTIONS: options for every JVM kfp leaves running, e.g. -XX:TieredStopAtLevel=1."
        })
public final class Kfp implements Callable<Integer> {

    private final KfpContext context;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    Kfp(KfpContext context) {
        this.context = context;
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
                if (System.getenv(KfpSettings.ON_CLIENT_HOST) != null) {
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
     * Whether the command reaches a process of the cluster over the network, as the command
     * declares it ({@link TalksToCluster}). In the lab those addresses exist only inside its
     * namespaces, so kfp runs such a command on the topology's client host (the operator's
     * machine); the lab commands, help and a command line that does not parse run where they are
     * called.
     */
    static boolean talksToTheCluster(String[] args) {
        CommandLine.ParseResult command;
        try {
            command = parser(new Kfp(null)).parseArgs(args);
        } catch (CommandLine.ParameterException invalid) {
            return false;
        }
        while (true) {
            if (command.isUsageHelpRequested() || command.isVersionHelpRequested()) {
                return false;
            }
            if (!command.hasSubcommand()) {
                break;
            }
            command = command.subcommand();
        }
        Object declared = command.commandSpec().userObject();
        TalksToCluster mark = null;
        if (declared instanceof Method method) {
            mark = method.getAnnotation(TalksToCluster.class);
            declared = command.commandSpec().parent().userObject();
        }
        if (mark == null) {
            mark = declared.getClass().getAnnotation(TalksToCluster.class);
        }
        return mark != null
                && (mark.onlyWith().isEmpty() || command.hasMatchedOption(mark.onlyWith()));
    }

    /**
     * Runs this same command in the client host's namespace ({@code ip netns exec}); returns its
     * exit code.
     */
    private static int onTheClientHost(KfpSettings settings, String[] args) {
        Topology topology = settings.topology();
        Lab lab = new Lab(topology, System.out);
        lab.requireUp();
        List<String> command = new ArrayList<>();
        command.add(settings.javaBin());
        for (String property : List.of("kfp.home", "log4j.configurationFile")) {
            if (System.getProperty(property) != null) {
                command.add("-D" + property + "=" + System.getProperty(property));
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Kfp.class.getName()));
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder =
                    new ProcessBuilder(topology.onHost(topology.client(), command)).inheritIO();
            builder.environment().put(KfpSettings.ON_CLIENT_HOST, topology.client().name());
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
        CommandLine commandLine =
                commandLine(new Kfp(new KfpContext(environment, home, callerDir, out, err)));
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
        CommandLine commandLine = parser(kfp);
        // Help says where things are with the settings in force, when they are valid.
        try {
            describe(commandLine, kfp.context.settings());
        } catch (KfpException invalid) {
            // Reported when a command runs; help stays general.
        }
        return commandLine;
    }

    /** The commands and how each takes its arguments. */
    private static CommandLine parser(Kfp kfp) {
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
        for (String name : List.of("submit", "resume", "upgrade", "savepoints", "acls")) {
            commandLine.getSubcommands().get(name).setUnmatchedOptionsArePositionalParams(true);
        }
        return commandLine;
    }

    private static void describe(CommandLine commandLine, KfpSettings settings) {
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
                        + " TaskManagers; REST API "
                        + settings.restUrl().replaceFirst("^https?://", "")
                        + (topology == null ? ", mutual TLS." : "."));
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
        spec.commandLine().usage(context.out());
        return 0;
    }

    /** What every command works with. */
    KfpContext context() {
        return context;
    }

    /** {@code kfp --version}: the project version the build wrote into kfp.properties. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"kfp " + KfpSettings.projectVersion()};
        }
    }
}
