package io.kfp.deploy;

import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.cluster.FlinkTls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.util.FileUtils;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A one-host kfp setup for an end-to-end test class: deploy/bin/kfp with its own run directory
 * under {@code target/} and free ports, so tests never meet a developer's broker or cluster, and
 * the ways such a test looks at it (the sink's printed lines, a topic's values, the REST API).
 */
final class OneHostKfp {

    static final Path KFP = Path.of("bin", "kfp").toAbsolutePath();

    /**
     * For every JVM a test's kfp leaves running: the test's clusters move little data, and on two
     * cores the optimising compiler's CPU in the first minutes of ten JVMs is what slows every
     * restart they wait for (in the lab: replicas back in sync after 11.7 s instead of 27 s).
     */
    static final String JVM_OPTIONS = "-XX:TieredStopAtLevel=1";

    final Path run;
    final Map<String, String> env = new HashMap<>();
    final String bootstrap;

    /**
     * A fresh run directory {@code target/NAME}: the processes of an aborted earlier run are
     * stopped by PID first.
     */
    OneHostKfp(String name, Map<String, String> settings) throws Exception {
        run = Path.of("target", name).toAbsolutePath();
        env.put("KFP_RUN_DIR", run.toString());
        if (Files.isDirectory(run.resolve("pid"))) {
            stop();
        }
        if (Files.isDirectory(run)) {
            // A checkpoint directory an aborted run left immutable (DeployEndToEndTest's alert).
            new ProcessBuilder("chattr", "-R", "-i", run.toString()).inheritIO().start().waitFor();
        }
        FileUtils.deleteDirectory(run.toFile());
        int prom = freePort();
        env.put("KFP_PROM_PORTS", prom + "-" + (prom + 20));
        for (String variable :
                List.of("KFP_KAFKA_PORT", "KFP_CONTROLLER_PORT", "KFP_REST_PORT", "KFP_RPC_PORT")) {
            env.put(variable, String.valueOf(newPort()));
        }
        env.put("KFP_JVM_OPTIONS", JVM_OPTIONS);
        env.putAll(settings);
        bootstrap = "127.0.0.1:" + env.get("KFP_KAFKA_PORT");
    }

    /**
     * A free loopback port that no variable of this setup names yet, outside its Prometheus range
     * (KFP_PROM_PORTS).
     */
    int newPort() throws IOException {
        String[] range = env.get("KFP_PROM_PORTS").split("-");
        int first = Integer.parseInt(range[0]);
        int last = Integer.parseInt(range[1]);
        while (true) {
            int port = freePort();
            if ((port < first || port > last) && !env.containsValue(String.valueOf(port))) {
                return port;
            }
        }
    }

    /** Runs deploy/bin/kfp; returns its output; fails with it on exit != 0. */
    String kfp(String... args) throws Exception {
        return Commands.succeed(command(args), env, run, Duration.ofMinutes(5));
    }

    /** Runs deploy/bin/kfp; the exit code is the caller's to judge. */
    Commands.Result tryKfp(String... args) throws Exception {
        return Commands.run(command(args), env, run, Duration.ofMinutes(5));
    }

    static String lastLine(String output) {
        return output.lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
    }

    private static List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of("bash", KFP.toString()));
        command.addAll(List.of(args));
        return command;
    }

    /** The cluster, then the broker, by PID through kfp; each even if the other failed. */
    void stop() {
        for (String[] step :
                new String[][] {{"monitoring", "stop"}, {"cluster", "stop"}, {"kafka", "stop"}}) {
            try {
                kfp(step);
            } catch (AssertionError | Exception e) {
                System.err.println("stopping: " + e);
            }
        }
    }

    /**
     * What the sink printed so far (the TaskManagers' stdout files): the lines starting with {@code
     * prefix}.
     */
    List<String> printed(String prefix) {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(run.resolve("log"))) {
            for (Path f :
                    files.filter(p -> p.getFileName().toString().matches("taskmanager-\\d+\\.out"))
                            .toList()) {
                Files.readAllLines(f, StandardCharsets.UTF_8).stream()
                        .filter(l -> l.startsWith(prefix))
                        .forEach(lines::add);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return lines;
    }

    /** The client settings of a plain client of this broker. */
    Properties client() {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        return props;
    }

    /**
     * Every value of {@code topic} up to its end offsets, read as {@code client} at the given
     * isolation level.
     */
    static List<String> values(String topic, Properties client, boolean committedOnly) {
        Properties props = new Properties();
        props.putAll(client);
        props.setProperty("isolation.level", committedOnly ? "read_committed" : "read_uncommitted");
        props.setProperty("enable.auto.commit", "false");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            return values;
        }
    }

    /** The REST API: https, as every one-host cluster's is (mutual TLS, {@code FlinkTls}). */
    String restUrl() {
        return "https://127.0.0.1:" + env.get("KFP_REST_PORT");
    }

    /** The configuration kfp and Flink's CLI use to reach this cluster (its key included). */
    Configuration clientConf() {
        return GlobalConfiguration.loadConfiguration(run.resolve("flink-conf").toString());
    }

    /** kfp's own REST client (Flink's RestClusterClient) on this cluster. */
    FlinkRest flinkRest() {
        return FlinkRest.connect(clientConf());
    }

    /** An HTTP client holding the cluster's certificate, as kfp's own is. */
    HttpClient http() {
        return FlinkTls.httpClient(clientConf());
    }

    /** The body of a GET to {@code url} by a client holding the cluster's certificate. */
    String get(String url) throws Exception {
        return http().send(
                        HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    /**
     * A free loopback port below the kernel's ephemeral range (32768 and up on Linux): the build
     * runs integration-tests beside this module (mvn -T 2, .mvn/maven.config), and a port-0 bind
     * there could otherwise take a port picked here before kfp's broker or cluster binds it. Ports
     * up to 20 above it stay below the range too (KFP_PROM_PORTS).
     */
    static int freePort() throws IOException {
        Random random = new Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + random.nextInt(12_000);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // another one
            }
        }
        throw new IOException("no free loopback port in 20000-31999 after 200 tries");
    }
}
