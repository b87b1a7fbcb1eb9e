package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Progress;
import io.kfp.deploy.job.JobStatusReport;
import io.kfp.deploy.monitoring.Monitoring;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@TalksToCluster
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
final class StatusCommand extends KfpCommand implements Callable<Integer> {
    @Parameters(
            arity = "0..1",
            paramLabel = "JOB",
            description = "a job (default: every job with a config file)")
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
        List<String> jobs = job == null ? List.of() : List.of(ctx().job(job).name());
        Duration every;
        try {
            every = TimeUtils.parseDuration(interval);
        } catch (IllegalArgumentException e) {
            throw new KfpException(
                    "--interval '" + interval + "' is not a duration: use e.g. '2 s'.");
        }
        ctx().requireLabNetwork();
        if (!watch) {
            if (job == null) {
                ctx().kafka().status();
                ctx().cluster().status();
                new Monitoring(ctx().settings(), ctx().out(), ctx().err()).link();
            }
            JobStatusReport.gatherAll(ctx(), jobs).print(Map.of(), ctx().out());
            return 0;
        }
        // On a terminal each screen replaces the last (like top); in a pipe no control codes,
        // one screen after the other.
        boolean terminal = Progress.onTerminal();
        // Rates over the last 10 s or so of screens: steadier than between two screens 2 s
        // apart.
        Map<String, ArrayDeque<JobStatusReport.View>> history = new HashMap<>();
        for (int screen = 1; screens == 0 || screen <= screens; screen++) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            PrintStream frame = new PrintStream(buffer, true, StandardCharsets.UTF_8);
            frame.printf(
                    Locale.ROOT,
                    "kfp status - %s, every %s%s%n",
                    Instant.now().truncatedTo(ChronoUnit.SECONDS),
                    TimeUtils.formatWithHighestUnit(every),
                    terminal ? " (Ctrl-C to stop)" : "");
            try {
                JobStatusReport.Screen now = JobStatusReport.gatherAll(ctx(), jobs);
                Map<String, JobStatusReport.View> earlier = new HashMap<>();
                for (JobStatusReport.View v : now.views()) {
                    ArrayDeque<JobStatusReport.View> views =
                            history.computeIfAbsent(v.job(), k -> new ArrayDeque<>());
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
            ctx().out()
                    .print(
                            terminal
                                    ? "\033[H\033[2J" + buffer.toString(StandardCharsets.UTF_8)
                                    : buffer.toString(StandardCharsets.UTF_8)
                                            + System.lineSeparator());
            ctx().out().flush();
            if (ctx().out().checkError()) {
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
