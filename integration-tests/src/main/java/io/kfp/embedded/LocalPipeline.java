package io.kfp.embedded;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigProblem;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.DidYouMean;
import io.kfp.common.config.InvalidConfigurationException;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.ingest.IngestJob;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import io.kfp.testkit.EmbeddedJobs;
import io.kfp.testkit.EmbeddedKafka;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.TimeUtils;
import org.apache.logging.log4j.LogManager;

/**
 * The whole pipeline on one machine, in one process: an embedded Kafka broker and Flink cluster,
 * the topics, and the three jobs started through their own {@code main} plumbing. Lines come from
 * this process's stdin and from {@code nc localhost PORT}; the sink prints them here.
 *
 * <p>Started by {@code ./run-pipeline}, which sets the logging configuration ({@code
 * kfp-log4j2.properties}) and turns off log4j's own shutdown hook: ours stops the jobs and still
 * logs, then shuts logging down.
 *
 * <p>Options: {@code --port N} (where to listen for lines, default 9999), {@code --work-dir DIR},
 * and any option of the jobs, given to every job that has it (e.g. {@code --relay.transform
 * window-count}, {@code --checkpoint.interval 2s}).
 */
public final class LocalPipeline {

    static final String INPUT_TOPIC = "lines";
    static final String OUTPUT_TOPIC = "relayed";

    /** One partition and one ingest writer, so lines come out in the order they were typed. */
    static final int PARTITIONS = 1;

    static final List<JobSpec> JOBS = List.of(IngestJob.SPEC, RelayJob.SPEC, SinkJob.SPEC);

    /**
     * Options the launcher sets for the pipeline to hang together; users cannot change them here.
     */
    static final Set<String> WIRING =
            Set.of(
                    "kafka.bootstrap-servers",
                    "source.topics",
                    "source.topic-pattern",
                    "sink.topic",
                    "socket.endpoints",
                    "checkpoint.dir",
                    "checkpoint.savepoint-dir");

    private LocalPipeline() {}

    public static void main(String[] args) throws Exception {
        int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        return run(args, out, err, System.console() != null);
    }

    static int run(String[] args, PrintStream stdout, PrintStream stderr, boolean terminal)
            throws Exception {
        PrintStream out = stdout;
        PrintStream err = stderr;
        LauncherArgs launcher;
        try {
            launcher = LauncherArgs.parse(args);
        } catch (InvalidConfigurationException e) {
            err.println("local pipeline: " + e.getMessage());
            err.println("Run with --help for the options.");
            return 2;
        }
        if (launcher.help) {
            out.println(HELP);
            return 0;
        }

        // On a terminal, a status line stays below what the sink prints; in a pipe there is none.
        StatusLine status = null;
        if (terminal) {
            status =
                    new StatusLine(
                            new FileOutputStream(FileDescriptor.out),
                            Integer.getInteger(COLUMNS, 80));
            System.setOut(new PrintStream(status, true, StandardCharsets.UTF_8));
            System.setErr(
                    new PrintStream(
                            status.beside(new FileOutputStream(FileDescriptor.err)),
                            true,
                            StandardCharsets.UTF_8));
            out = System.out;
            err = System.err;
        }
        final PrintStream hookOut = out;
        final PrintStream hookErr = err;

        // A fresh directory of our own inside --work-dir: the only thing deleted on exit.
        Files.createDirectories(launcher.workDir);
        Path work = Files.createTempDirectory(launcher.workDir.toAbsolutePath(), "pipeline-");
        List<AutoCloseable> started = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    hookOut.println();
                                    hookOut.println(
                                            "Stopping: jobs, Flink, Kafka; deleting " + work);
                                    stopAll(started, work, hookErr);
                                    stopped.countDown();
                                    LogManager.shutdown();
                                },
                                "local-pipeline-shutdown"));

        EmbeddedKafka kafka = EmbeddedKafka.start(work);
        started.add(kafka);
        kafka.createTopics(PARTITIONS, INPUT_TOPIC, OUTPUT_TOPIC);
        EmbeddedFlink flink = EmbeddedFlink.start(8, 2);
        started.add(flink);
        LineHub hub;
        try {
            hub = LineHub.start(launcher.port);
        } catch (BindException e) {
            err.println(
                    "local pipeline: port "
                            + launcher.port
                            + " is in use; pass --port with another one (0 = any free port).");
            return 2;
        }
        started.add(hub);
        started.add(flink::cancelAll); // stopped in reverse order: the jobs first

        PrintStream console = out;
        Map<JobSpec, List<String>> jobArgs =
                jobArguments(launcher, kafka.bootstrapServers(), hub.ingestPort(), work);
        Map<JobSpec, Configuration> configs = new LinkedHashMap<>();
        if (!launcher.verbose && System.getProperty(CONFIG_LOG) != null) {
            out.println(
                    "Each job's effective configuration: "
                            + Path.of(System.getProperty(CONFIG_LOG)).toAbsolutePath()
                            + " (--verbose prints it here)");
        }
        for (Map.Entry<JobSpec, List<String>> job : jobArgs.entrySet()) {
            JobSpec spec = job.getKey();
            EmbeddedJobs.Submitted submitted =
                    EmbeddedJobs.submit(
                            spec,
                            config -> {
                                configs.put(spec, config);
                                console.println(summary(spec, config));
                                return spec.workflow(config);
                            },
                            job.getValue().toArray(String[]::new),
                            out,
                            err);
            if (submitted.exitCode() != 0) {
                err.println(
                        spec.command()
                                + " could not start (exit "
                                + submitted.exitCode()
                                + "); stopping.");
                return submitted.exitCode();
            }
        }
        hub.forward(status == null ? System.in : status.watching(System.in), "stdin");

        out.println();
        out.println(
                "Pipeline running: lines -> ingest-job -> topic '"
                        + INPUT_TOPIC
                        + "' -> relay-job (exactly-once) -> topic '"
                        + OUTPUT_TOPIC
                        + "' -> sink-job -> this console.");
        out.println(
                "Kafka: "
                        + kafka.bootstrapServers()
                        + "   Flink REST: "
                        + flink.cluster().getRestAddress().get());
        out.println(
                "Type lines here, or from another terminal:  nc localhost " + hub.publishPort());
        out.println(
                "Lines appear below once their checkpoint commits (every few seconds). Ctrl-C stops everything.");
        out.println();
        if (status != null) {
            started.add(
                    refreshEvery(
                            STATUS_INTERVAL,
                            status,
                            new PipelineStatus(kafka, hub, status, configs),
                            stderr));
        }
        stopped.await();
        return 0;
    }

    /**
     * Where the launcher's logging configuration writes the jobs' configuration and our INFO log.
     */
    static final String CONFIG_LOG = "kfp.pipeline.log";

    /** How wide the terminal is ({@code tput cols}, set by run-pipeline); 80 when unknown. */
    static final String COLUMNS = "kfp.columns";

    static final Duration STATUS_INTERVAL = Duration.ofSeconds(2);

    /**
     * One line a job says at start: what it guarantees, how often it commits, what it reads and
     * writes.
     */
    static String summary(JobSpec spec, Configuration config) {
        String input =
                config.getOptional(SourceOptions.TOPICS).isPresent()
                                || config.getOptional(SourceOptions.TOPIC_PATTERN).isPresent()
                        ? SourceOptions.describeInput(config)
                        : "typed lines";
        String output = config.getOptional(KafkaSinkOptions.TOPIC).orElse("this console");
        return spec.command()
                + ": "
                + (config.getOptional(KafkaSinkOptions.TOPIC).isPresent()
                        ? ConfigValidator.text(config.get(KafkaSinkOptions.DELIVERY_GUARANTEE))
                                + ", "
                        : "")
                + (config.get(CheckpointOptions.ENABLED)
                        ? "checkpoint every "
                                + TimeUtils.formatWithHighestUnit(
                                        config.get(CheckpointOptions.INTERVAL))
                        : "no checkpoints")
                + ", "
                + input
                + " -> "
                + output;
    }

    /** Redraws the status line every {@code interval} until closed. */
    private static AutoCloseable refreshEvery(
            Duration interval, StatusLine line, PipelineStatus status, PrintStream stderr) {
        ScheduledExecutorService timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "local-pipeline-status");
                            t.setDaemon(true);
                            return t;
                        });
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        line.show(status.describe());
                    } catch (Throwable e) {
                        // Shown instead of the figures (the status line is the one place the user
                        // looks), and
                        // caught whole: anything thrown here would end the refreshing for good.
                        try {
                            line.show("status unavailable: " + e);
                        } catch (IOException terminalGone) {
                            stderr.println(
                                    "local pipeline: the status line cannot be drawn: "
                                            + terminalGone);
                        }
                    }
                },
                0,
                interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return () -> {
            line.clear(); // from here on show() draws nothing, whatever a refresh still running
            // does
            timer.shutdownNow();
            timer.awaitTermination(10, TimeUnit.SECONDS);
            status.close();
        };
    }

    /** Every job gets the wiring, then the user's options it declares. */
    static Map<JobSpec, List<String>> jobArguments(
            LauncherArgs launcher, String bootstrap, int ingestPort, Path work) {
        Map<JobSpec, List<String>> all = new LinkedHashMap<>();
        List<String> shared =
                List.of(
                        "--kafka.bootstrap-servers", bootstrap,
                        "--checkpoint.dir", work.resolve("checkpoints").toString(),
                        "--checkpoint.savepoint-dir", work.resolve("savepoints").toString());
        all.put(
                IngestJob.SPEC,
                new ArrayList<>(
                        List.of(
                                "--sink.topic",
                                INPUT_TOPIC,
                                "--socket.endpoints",
                                "127.0.0.1:" + ingestPort,
                                "--job.parallelism",
                                "1")));
        all.put(
                RelayJob.SPEC,
                new ArrayList<>(
                        List.of("--source.topics", INPUT_TOPIC, "--sink.topic", OUTPUT_TOPIC)));
        all.put(
                SinkJob.SPEC,
                new ArrayList<>(
                        List.of(
                                "--source.topics",
                                OUTPUT_TOPIC,
                                "--source.offset-reset",
                                "earliest")));
        for (List<String> args : all.values()) {
            args.addAll(shared);
        }
        launcher.jobOptions.forEach(
                (key, value) -> {
                    for (JobSpec spec : JOBS) {
                        if (declares(spec, key)) {
                            all.get(spec).add("--" + key);
                            all.get(spec).add(value);
                        }
                    }
                });
        return all;
    }

    static boolean declares(JobSpec spec, String key) {
        return ConfigValidator.knownKeys(spec.groups()).contains(key)
                || spec.groups().stream()
                        .flatMap(g -> g.passThroughPrefixes().stream())
                        .anyMatch(p -> key.startsWith(p.prefix()));
    }

    private static void stopAll(List<AutoCloseable> started, Path work, PrintStream err) {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                err.println("While stopping: " + e);
            }
        }
        try {
            FileUtils.deleteDirectory(work.toFile());
        } catch (IOException e) {
            err.println("Could not delete " + work + ": " + e);
        }
    }

    /** The launcher's own options, and the job options to pass on. */
    static final class LauncherArgs {
        int port = 9999;
        Path workDir = Path.of("target", "local-pipeline");
        boolean help;
        boolean verbose;
        final Map<String, String> jobOptions = new LinkedHashMap<>();

        static LauncherArgs parse(String[] args) {
            LauncherArgs parsed = new LauncherArgs();
            List<ConfigProblem> problems = new ArrayList<>();
            ConfigLoader.Loaded loaded = ConfigLoader.load(args, Map.of(), Map.of(), List.of());
            problems.addAll(loaded.syntaxProblems());
            parsed.help = loaded.helpRequested();
            Set<String> known = new TreeSet<>();
            for (JobSpec spec : JOBS) {
                known.addAll(ConfigValidator.knownKeys(spec.groups()));
            }
            loaded.raw()
                    .entries()
                    .forEach(
                            (key, entry) -> {
                                String value = entry.value();
                                switch (key) {
                                    case "port" -> {
                                        try {
                                            parsed.port = Integer.parseInt(value);
                                        } catch (NumberFormatException e) {
                                            problems.add(
                                                    new ConfigProblem(
                                                            "port",
                                                            value,
                                                            "command line",
                                                            "not a port number.",
                                                            "use e.g. --port 9999, or 0 for any free port."));
                                        }
                                    }
                                    case "work-dir" -> parsed.workDir = Path.of(value);
                                    case "verbose" -> {
                                        // run-pipeline picks the logging by the bare word, before
                                        // Java starts: only that form.
                                        if (!value.equals("true")
                                                || Arrays.stream(args)
                                                        .noneMatch("--verbose"::equals)) {
                                            problems.add(
                                                    new ConfigProblem(
                                                            "verbose",
                                                            value,
                                                            "command line",
                                                            "takes no value.",
                                                            "write --verbose alone."));
                                        }
                                        parsed.verbose = true;
                                    }
                                    default -> {
                                        if (WIRING.contains(key)) {
                                            problems.add(
                                                    new ConfigProblem(
                                                            key,
                                                            value,
                                                            "command line",
                                                            "the local pipeline wires this itself (topics, broker, socket).",
                                                            "remove it; run the jobs one by one (deploy/bin/kfp) to choose it."));
                                        } else if (JOBS.stream()
                                                .anyMatch(spec -> declares(spec, key))) {
                                            parsed.jobOptions.put(key, value);
                                        } else {
                                            List<String> candidates = new ArrayList<>(known);
                                            candidates.add("port");
                                            candidates.add("work-dir");
                                            candidates.add("verbose");
                                            problems.add(
                                                    new ConfigProblem(
                                                            key,
                                                            value,
                                                            "command line",
                                                            "no job of the pipeline has this option.",
                                                            DidYouMean.suggest(key, candidates)
                                                                    .map(
                                                                            s ->
                                                                                    "did you mean '"
                                                                                            + s
                                                                                            + "'?")
                                                                    .orElse(
                                                                            "see --help of ingest-job, relay-job and sink-job.")));
                                        }
                                    }
                                }
                            });
            if (!problems.isEmpty()) {
                throw new InvalidConfigurationException(problems);
            }
            return parsed;
        }
    }

    static final String HELP =
            String.join(
                    "\n",
                    "local pipeline: Kafka broker, Flink cluster and the three jobs in one process.",
                    "",
                    "  lines (stdin, nc localhost PORT) -> ingest-job -> topic '"
                            + INPUT_TOPIC
                            + "' -> relay-job -> topic '"
                            + OUTPUT_TOPIC
                            + "' -> sink-job -> console",
                    "",
                    "Options:",
                    "  --port N          where to listen for lines (default 9999; 0 = any free port)",
                    "  --work-dir DIR    broker data and checkpoints, deleted on exit (default target/local-pipeline)",
                    "  --verbose         print each job's effective configuration and every INFO log line here, not only",
                    "                    to the log file (integration-tests/target/local-pipeline/pipeline.log)",
                    "  --<job option>    any option of ingest-job, relay-job or sink-job, given to each job that has it,",
                    "                    e.g. --relay.transform window-count, --checkpoint.interval 2s, --console.print-key",
                    "                    (each job's options: its README, or java -cp ... io.kfp.relay.RelayJob --help)",
                    "",
                    "Ctrl-C stops the jobs, the cluster and the broker and deletes the work directory.");
}
