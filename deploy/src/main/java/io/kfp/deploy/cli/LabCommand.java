package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.S3Store;
import io.kfp.deploy.cluster.ZooKeeperServer;
import io.kfp.deploy.kafka.KafkaBroker;
import io.kfp.deploy.lab.Lab;
import io.kfp.deploy.lab.drill.Fault;
import io.kfp.deploy.lab.drill.LabDrill;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "lab",
        mixinStandardHelpOptions = true,
        description = {
            "Several hosts on this machine: a network namespace per host of KFP_TOPOLOGY (root needed).",
            "Commands that talk to the cluster (kafka, cluster, topics, submit, stop, ...) run on its client host by themselves."
        })
final class LabCommand extends KfpCommand {
    @Command(
            name = "up",
            description =
                    "Create the hosts: one namespace each, joined by a bridge in a namespace of its own.")
    void up() {
        ctx().lab().up();
    }

    @Command(
            name = "down",
            description =
                    "Stop every process of the lab by its PID, then remove every namespace it made.")
    void down() {
        Lab lab = ctx().lab();
        Lab.requireRoot();
        // TaskManagers before JobManagers before the stores they write to; each group at once
        // (a Kafka node stopped after the others would wait for a quorum that is gone).
        record Tracked(Processes processes, String name) {}
        List<Tracked> all = new ArrayList<>();
        for (Topology.Host host : ctx().settings().topology().hosts()) {
            Processes processes = ctx().settings().processes(host, ctx().out(), ctx().err());
            processes.tracked("").forEach(name -> all.add(new Tracked(processes, name)));
        }
        all.stream()
                .collect(
                        Collectors.groupingBy(
                                t -> stopOrder(t.name()), TreeMap::new, Collectors.toList()))
                // Everything goes: no broker needs to hand over leadership, so 10 s of grace is
                // plenty.
                .values()
                .forEach(
                        group ->
                                Processes.allAtOnce(
                                        group,
                                        t -> t.processes().stop(t.name(), Duration.ofSeconds(10))));
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
        ctx().lab().requireUp();
        Topology topology = ctx().settings().topology();
        List<String> full = topology.onHost(topology.host(host), command);
        return new ProcessBuilder(full).inheritIO().start().waitFor();
    }

    @Command(
            name = "partition",
            description = "Cut HOST off the network (its link down) until 'kfp lab heal HOST'.")
    void partition(@Parameters(paramLabel = "HOST") String host) {
        ctx().lab().partition(ctx().settings().topology().host(host));
    }

    @Command(name = "heal", description = "Put HOST back on the network.")
    void heal(@Parameters(paramLabel = "HOST") String host) {
        ctx().lab().heal(ctx().settings().topology().host(host));
    }

    @TalksToCluster
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
                                            + " partition-leader-broker, s3-outage, rescale-up, rescale-down, upgrade, failed-upgrade")
                    String faults,
            @Option(
                            names = "--records",
                            defaultValue = "300000",
                            description = "produce at least this many (default ${DEFAULT-VALUE})")
                    long records,
            @Option(
                            names = "--rate",
                            defaultValue = "1000",
                            description = "records per second (default ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--report",
                            paramLabel = "FILE",
                            description =
                                    "the Markdown report to write (default KFP_RUN_DIR/lab/drill-report.md)")
                    String report,
            @Parameters(paramLabel = "RELAY-OPTION", arity = "0..*", description = RELAY_OPTIONS)
                    List<String> relayOptions)
            throws Exception {
        return new LabDrill(ctx(), orEmpty(relayOptions), reportFile(report, "drill-report.md"))
                        .run(Fault.parse(faults), records, rate)
                        .passed()
                ? 0
                : KfpException.FAILED;
    }

    @TalksToCluster
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
            @Option(
                            names = "--report",
                            paramLabel = "FILE",
                            description =
                                    "the Markdown report to write (default KFP_RUN_DIR/lab/soak-report.md)")
                    String report,
            @Parameters(paramLabel = "RELAY-OPTION", arity = "0..*", description = RELAY_OPTIONS)
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
        List<Fault> faults = Fault.random(count, seed);
        ctx().out().println("soak: " + faults.stream().map(Fault::label).toList());
        return new LabDrill(ctx(), orEmpty(relayOptions), reportFile(report, "soak-report.md"))
                        .run(faults, records, rate, wait)
                        .passed()
                ? 0
                : KfpException.FAILED;
    }

    /**
     * {@code --report FILE} relative to the caller's directory, else {@code name} in
     * KFP_RUN_DIR/lab.
     */
    private Path reportFile(String given, String name) {
        return given == null
                ? ctx().settings().run().resolve("lab").resolve(name)
                : Path.of(ctx().settings().absolute(given));
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
        ctx().lab().requireUp();
        Topology.Host where = ctx().settings().topology().host(host);
        if (!ctx().settings().processes(where, ctx().out(), ctx().err()).kill(process)) {
            throw new KfpException(
                    "no process " + process + " runs on " + host + " ('kfp status' lists them).",
                    KfpException.FAILED);
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
}
