package io.kfp.deploy.cluster;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Progress;
import io.kfp.deploy.Topology;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

/**
 * The standalone Flink session cluster, started the way Flink's own jobmanager.sh / taskmanager.sh
 * start it (the same memory flags, computed by the same Flink classes), from {@code
 * conf/flink/config.yaml}. On one host: one JobManager and numbered TaskManagers on 127.0.0.1. In a
 * topology: a JobManager on every jobmanager host (leader and standby, elected through ZooKeeper,
 * {@code conf/flink/ha.yaml}) and one TaskManager per taskmanager host, each with a conf directory
 * of its own that names its host's address.
 */
public final class FlinkCluster {

    public static final String JOBMANAGER = "jobmanager";
    public static final String TASKMANAGER = "taskmanager-";

    /**
     * What Flink's scripts give every JVM of the cluster (config.yaml's env.java.opts.all default).
     */
    public static final List<String> JAVA_OPENS =
            List.of(
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                            "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                            "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                            "--add-opens=java.base/java.io=ALL-UNNAMED");

    private final KfpSettings settings;
    private final PrintStream out;
    private final PrintStream err;
    private final ClusterConf conf;

    public FlinkCluster(KfpSettings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
        this.conf = new ClusterConf(settings, out, err);
    }

    private Topology topology() {
        return settings.topology();
    }

    /** Where JobManagers run; on one host a single null (this machine). */
    List<Topology.Host> jobManagerHosts() {
        List<Topology.Host> hosts = new ArrayList<>();
        if (topology() == null) {
            hosts.add(null);
        } else {
            hosts.addAll(topology().with(Topology.Role.JOBMANAGER));
        }
        return hosts;
    }

    /** The host of TaskManager N: this machine, or the taskmanager hosts in turn. */
    public Topology.Host taskManagerHost(int n) {
        if (topology() == null) {
            return null;
        }
        List<Topology.Host> workers = topology().with(Topology.Role.TASKMANAGER);
        return workers.get((n - 1) % workers.size());
    }

    int initialTaskManagers() {
        return topology() == null
                ? settings.taskManagers()
                : topology().with(Topology.Role.TASKMANAGER).size();
    }

    /** The ZooKeeper server of the topology, if it has one. */
    ZooKeeperServer zooKeeper() {
        return conf.zooKeeper();
    }

    /**
     * Writes the client's conf directory ({@code RUN/flink-conf}: what kfp and Flink's CLI use to
     * find the cluster) and returns the configuration in it.
     */
    public Configuration writeConf() {
        return conf.writeClient();
    }

    /** See {@link ClusterConf#sharedStorage()}. */
    public String sharedStorage() {
        return conf.sharedStorage();
    }

    public S3Store s3() {
        return conf.s3();
    }

    private Configuration writeConf(Topology.Host host, Path dir) {
        return conf.write(host, dir);
    }

    private Path confDir(Topology.Host host) {
        return conf.dir(host);
    }

    /**
     * Starts what is not running. The first start makes the cluster talk TLS ({@link FlinkTls}): on
     * one host always, in a topology with {@code tls}.
     */
    public void start(boolean tls) {
        FlinkTls flinkTls = new FlinkTls(settings.run());
        if ((tls || topology() == null) && !flinkTls.enabled()) {
            if (jobManagerHosts().stream()
                    .anyMatch(h -> processes(h).running(JOBMANAGER).isPresent())) {
                throw new KfpException(
                        "the cluster runs without TLS (it was started before kfp made "
                                + settings.run().resolve("flink-tls")
                                + "); stop it first ('kfp cluster stop'), then start it again"
                                + (topology() == null ? "." : " with --tls."));
            }
            flinkTls.create(topology());
        }
        settings.requireDist();
        if (topology() == null && processes(null).running(JOBMANAGER).isEmpty()) {
            Processes.requireFreePort(settings.restPort(), "KFP_REST_PORT");
            Processes.requireFreePort(settings.rpcPort(), "KFP_RPC_PORT");
        }
        Configuration client = writeConf();
        if (s3() != null) {
            s3().start();
        }
        if (zooKeeper() != null) {
            zooKeeper().start();
        }
        for (Topology.Host host : jobManagerHosts()) {
            startJobManager(host);
        }
        out.println(
                "waiting for "
                        + (jobManagerHosts().size() == 1 ? "the JobManager" : "the JobManagers")
                        + " to answer ...");
        for (Topology.Host host : jobManagerHosts()) {
            awaitJobManager(host, Duration.ofSeconds(90));
        }
        for (int n = 1; n <= initialTaskManagers(); n++) {
            startTaskManager(n);
        }
        try (FlinkRest rest = FlinkRest.connect(client)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            Progress registering =
                    new Progress(
                            out,
                            Progress.onTerminal(),
                            "TaskManagers registered",
                            initialTaskManagers());
            int registered;
            while ((registered = rest.taskManagers()) < initialTaskManagers()) {
                registering.update(registered);
                if (System.nanoTime() > deadline) {
                    registering.done();
                    throw new KfpException(
                            "TaskManagers did not register within 60 s; see "
                                    + settings.run()
                                    + (topology() == null ? "/log" : "/hosts/*/log")
                                    + "/taskmanager-*.out, then 'kfp cluster stop'.");
                }
                Processes.sleep(Duration.ofMillis(500));
            }
            registering.update(registered);
            registering.done();
        }
        out.println(
                "Flink ready: "
                        + initialTaskManagers()
                        + " TaskManagers; REST API "
                        + settings.restUrl());
    }

    public void stop() {
        for (int host = 0; host < taskManagerHostsCount(); host++) {
            Processes processes = processes(taskManagerHost(host + 1));
            processes.tracked(TASKMANAGER).forEach(processes::stop);
        }
        for (Topology.Host host : jobManagerHosts()) {
            processes(host).stop(JOBMANAGER);
        }
        if (zooKeeper() != null) {
            zooKeeper().stop();
        }
        if (s3() != null) {
            s3().stop();
        }
    }

    private int taskManagerHostsCount() {
        return topology() == null ? 1 : topology().with(Topology.Role.TASKMANAGER).size();
    }

    public void status() {
        for (Topology.Host host : jobManagerHosts()) {
            OptionalLong jm = processes(host).running(JOBMANAGER);
            String url = settings.restUrl(host);
            out.println(
                    jm.isPresent()
                            ? "jobmanager"
                                    + on(host)
                                    + ": running (pid "
                                    + jm.getAsLong()
                                    + "), REST API "
                                    + url
                            : "jobmanager" + on(host) + ": stopped");
        }
        for (int host = 0; host < taskManagerHostsCount(); host++) {
            Topology.Host where = taskManagerHost(host + 1);
            Processes processes = processes(where);
            for (String name : processes.tracked(TASKMANAGER)) {
                OptionalLong pid = processes.running(name);
                out.println(
                        pid.isPresent()
                                ? name + on(where) + ": running (pid " + pid.getAsLong() + ")"
                                : name + on(where) + ": dead (stale pid file)");
            }
        }
        if (zooKeeper() != null) {
            zooKeeper().status();
        }
        if (s3() != null) {
            s3().status();
        }
        int registered = 0;
        String leader = null;
        if (anyJobManagerAnswers()) {
            try (FlinkRest rest = FlinkRest.connect(writeConf())) {
                registered = rest.taskManagers();
                leader = topology() == null ? null : rest.leader();
            }
        }
        out.println("registered TaskManagers: " + registered);
        if (leader != null) {
            out.println("leading JobManager: " + leader);
        }
    }

    public boolean anyJobManagerAnswers() {
        return jobManagerHosts().stream()
                .anyMatch(h -> Processes.portOpen(KfpSettings.address(h), settings.restPort()));
    }

    public void startTaskManager(int n) {
        settings.requireDist();
        Topology.Host host = taskManagerHost(n);
        Configuration config = writeConf(host, confDir(host));
        TaskExecutorProcessSpec spec;
        try {
            spec = TaskExecutorProcessUtils.processSpecFromConfig(config);
        } catch (RuntimeException e) {
            throw new KfpException(
                    "could not compute TaskManager memory settings from "
                            + confDir(host)
                            + "/config.yaml: "
                            + e.getMessage());
        }
        String name = TASKMANAGER + n;
        List<String> command =
                javaCommand(host, name, ProcessMemoryUtils.generateJvmParametersStr(spec));
        command.add("org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
        command.addAll(
                List.of(
                        "--configDir",
                        confDir(host).toString(),
                        "-D",
                        "taskmanager.resource-id=tm-" + n));
        command.addAll(words(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)));
        processes(host)
                .start(
                        name,
                        log(host, name, ".out"),
                        command,
                        settings.hostRun(host),
                        environment());
    }

    public void stopTaskManager(int n) {
        processes(taskManagerHost(n)).stop(TASKMANAGER + n);
    }

    public void killTaskManager(int n) {
        processes(taskManagerHost(n)).kill(TASKMANAGER + n);
    }

    public void startJobManager(Topology.Host host) {
        Configuration config = writeConf(host, confDir(host));
        JobManagerProcessSpec spec;
        try {
            spec = JobManagerProcessUtils.processSpecFromConfig(config);
        } catch (RuntimeException e) {
            throw new KfpException(
                    "could not compute JobManager memory settings from "
                            + confDir(host)
                            + "/config.yaml: "
                            + e.getMessage());
        }
        List<String> command =
                javaCommand(
                        host,
                        JOBMANAGER,
                        JobManagerProcessUtils.generateJvmParametersStr(spec, config));
        command.add("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
        command.addAll(List.of("--configDir", confDir(host).toString()));
        command.addAll(words(JobManagerProcessUtils.generateDynamicConfigsStr(spec)));
        processes(host)
                .start(
                        JOBMANAGER,
                        log(host, JOBMANAGER, ".out"),
                        command,
                        settings.hostRun(host),
                        environment());
    }

    /** Waits until the JobManager on {@code host} (the leader or a standby) opens its REST port. */
    public void awaitJobManager(Topology.Host host, Duration timeout) {
        processes(host)
                .awaitPort(
                        KfpSettings.address(host),
                        settings.restPort(),
                        "the JobManager" + on(host),
                        JOBMANAGER,
                        log(host, JOBMANAGER, ".out"),
                        timeout);
    }

    public void killJobManager(Topology.Host host) {
        processes(host).kill(JOBMANAGER);
    }

    /** Flink finds its plugins (file systems such as S3) through FLINK_PLUGINS_DIR. */
    private Map<String, String> environment() {
        return Map.of("FLINK_PLUGINS_DIR", pluginsDir().toString());
    }

    public Path pluginsDir() {
        return settings.dist().resolve("flink").resolve("plugins");
    }

    private List<String> javaCommand(Topology.Host host, String name, String memoryFlags) {
        List<String> own = new ArrayList<>(words(memoryFlags));
        own.addAll(JAVA_OPENS);
        own.add("-Dlog.file=" + log(host, name, ".log"));
        own.add("-Dlog4j.configurationFile=" + confDir(host).resolve("log4j.properties"));
        return settings.java(own, "-cp", classpath());
    }

    /** Flink's lib/ plus our loopback Prometheus reporter (kfp's classes). */
    public String classpath() {
        return settings.flinkDir().resolve("lib") + "/*:" + settings.ownClasspath();
    }

    private Processes processes(Topology.Host host) {
        return settings.processes(host, out, err);
    }

    private Path log(Topology.Host host, String name, String suffix) {
        return settings.hostRun(host).resolve("log").resolve(name + suffix);
    }

    private static String on(Topology.Host host) {
        return host == null ? "" : " on " + host.name();
    }

    /** Flink's generated flags are one space-separated line, each value without spaces. */
    private static List<String> words(String line) {
        return Arrays.stream(line.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }
}
