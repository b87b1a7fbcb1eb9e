package io.kfp.deploy;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;

/**
 * The single-node KRaft broker (broker and controller in one process) on 127.0.0.1, from the
 * {@code kafka_2.13} artifact in {@code target/dist/kafka/libs}, configured by
 * {@code conf/kafka/server.properties}. Its data lives in {@code RUN/kafka-data}.
 */
final class KafkaBroker {

    static final String NAME = "kafka";

    private final KfpSettings settings;
    private final Processes processes;
    private final PrintStream out;

    KafkaBroker(KfpSettings settings, Processes processes, PrintStream out) {
        this.settings = settings;
        this.processes = processes;
        this.out = out;
    }

    void start() {
        if (settings.externalKafka()) {
            out.println("KAFKA_BOOTSTRAP=" + settings.bootstrap() + ": using that cluster, not starting one.");
            return;
        }
        settings.requireDist();
        if (processes.running(NAME).isPresent()) {
            out.println("kafka already running (pid " + processes.running(NAME).getAsLong() + ")");
            return;
        }
        Processes.requireFreePort(settings.kafkaPort(), "KFP_KAFKA_PORT");
        Processes.requireFreePort(settings.controllerPort(), "KFP_CONTROLLER_PORT");
        Path dir = settings.run().resolve("kafka");
        Path logs = settings.run().resolve("log").resolve("kafka");
        Path properties = dir.resolve("server.properties");
        try {
            Files.createDirectories(dir);
            Files.createDirectories(logs);
            Files.writeString(properties, settings.fill(Files.readString(settings.home().resolve("conf/kafka/server.properties"))));
            Files.copy(settings.home().resolve("conf/kafka/log4j2.properties"), dir.resolve("log4j2.properties"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            if (!Files.exists(settings.run().resolve("kafka-data").resolve("meta.properties"))) {
                format(properties, logs.resolve("format.log"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = java();
        command.add("kafka.Kafka");
        command.add(properties.toString());
        Path output = logs.resolve("kafka.out");
        processes.start(NAME, output, command, settings.run());
        processes.awaitPort(settings.kafkaPort(), "Kafka", NAME, output, Duration.ofSeconds(60));
        out.println("Kafka ready on " + settings.bootstrap() + " (data: " + settings.run().resolve("kafka-data") + ")");
    }

    void stop() {
        processes.stop(NAME);
    }

    void status() {
        var pid = processes.running(NAME);
        out.println(pid.isPresent() ? "kafka: running (pid " + pid.getAsLong() + "), " + settings.bootstrap() : "kafka: stopped");
    }

    /** Formats the storage directory with a new cluster id, as kafka-storage.sh format --standalone does. */
    private void format(Path properties, Path log) throws IOException {
        List<String> command = java();
        command.addAll(List.of("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
                "-c", properties.toString(), "--standalone"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        if (process.isAlive() || process.exitValue() != 0) {
            throw new KfpException("formatting the broker's storage failed: " + log);
        }
    }

    private List<String> java() {
        Path dir = settings.run().resolve("kafka");
        return new ArrayList<>(List.of(settings.javaBin(), "-Xmx1g",
                "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"),
                "-Dkafka.logs.dir=" + settings.run().resolve("log").resolve("kafka"),
                "-cp", settings.dist().resolve("kafka").resolve("libs") + "/*"));
    }
}
