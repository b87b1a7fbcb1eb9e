package io.kfp.deploy;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;

/**
 * The standalone Flink session cluster: one JobManager and numbered TaskManagers, started the way
 * Flink's own jobmanager.sh / taskmanager.sh start them (the same memory flags, computed by the
 * same Flink classes), from {@code conf/flink/config.yaml} written to {@code RUN/flink-conf}.
 */
final class FlinkCluster {

    static final String JOBMANAGER = "jobmanager";
    static final String TASKMANAGER = "taskmanager-";

    /** What Flink's scripts give every JVM of the cluster (config.yaml's env.java.opts.all default). */
    static final List<String> JAVA_OPENS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED");

    private final KfpSettings settings;
    private final Processes processes;
    private final PrintStream out;

    FlinkCluster(KfpSettings settings, Processes processes, PrintStream out) {
        this.settings = settings;
        this.processes = processes;
        this.out = out;
    }

    /** Writes the cluster's conf directory from the templates; returns the configuration in it. */
    Configuration writeConf() {
        Path conf = settings.flinkConf();
        Path templates = settings.home().resolve("conf").resolve("flink");
        try {
            for (String dir : List.of("log", "tmp", "savepoints")) {
                Files.createDirectories(settings.run().resolve(dir));
            }
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("config.yaml"), settings.fill(Files.readString(templates.resolve("config.yaml"))));
            for (String file : List.of("log4j.properties", "log4j-cli.properties")) {
                Files.copy(templates.resolve(file), conf.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return GlobalConfiguration.loadConfiguration(conf.toString());
    }

    void start() {
        settings.requireDist();
        if (processes.running(JOBMANAGER).isEmpty()) {
            Processes.requireFreePort(settings.restPort(), "KFP_REST_PORT");
            Processes.requireFreePort(settings.rpcPort(), "KFP_RPC_PORT");
        }
        Configuration config = writeConf();
        startJobManager(config);
        processes.awaitPort(settings.restPort(), "the JobManager", JOBMANAGER, log(JOBMANAGER, ".out"), Duration.ofSeconds(60));
        for (int n = 1; n <= settings.taskManagers(); n++) {
            startTaskManager(config, n);
        }
        try (FlinkRest rest = FlinkRest.connect(config)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (rest.taskManagers() < settings.taskManagers()) {
                if (System.nanoTime() > deadline) {
                    throw new KfpException("TaskManagers did not register within 30 s; see " + settings.run().resolve("log")
                            + "/taskmanager-*.out, then 'kfp cluster stop'.");
                }
                Processes.sleep(Duration.ofMillis(500));
            }
        }
        out.println("Flink ready: " + settings.taskManagers() + " TaskManagers; Web UI " + settings.restUrl());
    }

    void stop() {
        processes.tracked(TASKMANAGER).forEach(processes::stop);
        processes.stop(JOBMANAGER);
    }

    void status() {
        OptionalLong jm = processes.running(JOBMANAGER);
        out.println(jm.isPresent()
                ? "jobmanager: running (pid " + jm.getAsLong() + "), Web UI " + settings.restUrl()
                : "jobmanager: stopped");
        for (String name : processes.tracked(TASKMANAGER)) {
            OptionalLong pid = processes.running(name);
            out.println(pid.isPresent() ? name + ": running (pid " + pid.getAsLong() + ")" : name + ": dead (stale pid file)");
        }
        int registered = 0;
        if (Processes.portOpen(settings.restPort())) {
            try (FlinkRest rest = FlinkRest.connect(writeConf())) {
                registered = rest.taskManagers();
            }
        }
        out.println("registered TaskManagers: " + registered);
    }

    void startTaskManager(int n) {
        settings.requireDist();
        startTaskManager(writeConf(), n);
    }

    void stopTaskManager(int n) {
        processes.stop(TASKMANAGER + n);
    }

    private void startJobManager(Configuration config) {
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfig(config);
        List<String> command = javaCommand(JOBMANAGER,
                JobManagerProcessUtils.generateJvmParametersStr(spec, config));
        command.add("org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
        command.addAll(List.of("--configDir", settings.flinkConf().toString()));
        command.addAll(words(JobManagerProcessUtils.generateDynamicConfigsStr(spec)));
        processes.start(JOBMANAGER, log(JOBMANAGER, ".out"), command, settings.run());
    }

    private void startTaskManager(Configuration config, int n) {
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(config);
        String name = TASKMANAGER + n;
        List<String> command = javaCommand(name, ProcessMemoryUtils.generateJvmParametersStr(spec));
        command.add("org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
        command.addAll(List.of("--configDir", settings.flinkConf().toString(), "-D", "taskmanager.resource-id=tm-" + n));
        command.addAll(words(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec)));
        processes.start(name, log(name, ".out"), command, settings.run());
    }

    private List<String> javaCommand(String name, String memoryFlags) {
        List<String> command = new ArrayList<>();
        command.add(settings.javaBin());
        command.addAll(words(memoryFlags));
        command.addAll(JAVA_OPENS);
        command.add("-Dlog.file=" + log(name, ".log"));
        command.add("-Dlog4j.configurationFile=" + settings.flinkConf().resolve("log4j.properties"));
        command.add("-cp");
        command.add(classpath());
        return command;
    }

    /** Flink's lib/ plus our loopback Prometheus reporter (kfp's classes). */
    String classpath() {
        return settings.flinkDir().resolve("lib") + "/*:" + Kfp.ownClasspath(settings);
    }

    private Path log(String name, String suffix) {
        return settings.run().resolve("log").resolve(name + suffix);
    }

    /** Flink's generated flags are one space-separated line, each value without spaces. */
    private static List<String> words(String line) {
        return Arrays.stream(line.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }
}
