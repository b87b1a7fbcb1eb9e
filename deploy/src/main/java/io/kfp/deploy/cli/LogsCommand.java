package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
        name = "logs",
        mixinStandardHelpOptions = true,
        description = "Where the logs are; for a job that prints: the records it printed so far.")
final class LogsCommand extends KfpCommand implements Callable<Integer> {
    @Parameters(
            paramLabel = "WHAT",
            description = "a job (kfp jobs lists them), jobmanager or kafka")
    String what;

    @Override
    public Integer call() {
        KfpSettings settings = ctx().settings();
        List<Path> logs = new ArrayList<>();
        if (settings.topology() == null) {
            logs.add(settings.run().resolve("log"));
        } else {
            settings.topology().hosts().forEach(h -> logs.add(settings.hostRun(h).resolve("log")));
        }
        switch (what) {
            // On one host the path, started or not; in a topology the hosts that have one.
            case "jobmanager" ->
                    logs.stream()
                            .map(l -> l.resolve("jobmanager.log"))
                            .filter(p -> settings.topology() == null || Files.exists(p))
                            .forEach(ctx().out()::println);
            case "kafka" ->
                    logs.stream()
                            .map(l -> l.resolve("kafka").resolve("server.log"))
                            .filter(p -> settings.topology() == null || Files.exists(p))
                            .forEach(ctx().out()::println);
            default -> {
                if (!ctx().jobs().names().contains(what)) {
                    throw new KfpException(
                            "kfp logs JOB|jobmanager|kafka, with JOB one of "
                                    + String.join(", ", ctx().jobs().names())
                                    + "; not '"
                                    + what
                                    + "'.");
                }
                if (ctx().job(what).spec().printGuarantee() != null) {
                    logs.forEach(this::printTaskManagerStdout);
                } else {
                    logs.forEach(
                            log ->
                                    ctx().out()
                                            .println(
                                                    "TaskManager logs: "
                                                            + log
                                                            + "/taskmanager-*.log (jobs log their configuration and problems there)"));
                }
            }
        }
        return 0;
    }

    private void printTaskManagerStdout(Path log) {
        if (!Files.isDirectory(log)) {
            return;
        }
        try (Stream<Path> files = Files.list(log)) {
            for (Path file :
                    files.filter(f -> f.getFileName().toString().matches("taskmanager-\\d+\\.out"))
                            .sorted()
                            .toList()) {
                // Flink's own JVM warnings share the file with what the sink printed.
                Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                        .filter(l -> !l.startsWith("WARNING: "))
                        .forEach(ctx().out()::println);
            }
            ctx().out().flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
