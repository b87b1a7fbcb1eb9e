package io.kfp.deploy.monitoring;

import com.sun.net.httpserver.HttpServer;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.deploy.KfpContext;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.JobStatusReport;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.deploy.kafka.Topics;
import io.kfp.ops.offsets.ConsumerLag;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;

/**
 * What Flink and Kafka do not export, for Prometheus ({@code kfp monitoring start} runs it on
 * {@code KFP_EXPORTER_PORT} of 127.0.0.1, or of the topology's monitoring host): per job its true
 * lag - in records a read_committed reader would still get, transaction markers and aborted records
 * not counted (the connector's own lag metric counts them, FLINK-33484), the engine behind {@code
 * kfp status} - its open transactions and the oldest one's age beside its transaction timeout, and
 * per output partition how far the last stable offset trails the high watermark. Gathered every
 * {@link #INTERVAL}; a value that could not be learned is NaN, and the round's problem is counted
 * and written to the status file.
 */
public final class Exporter implements AutoCloseable {

    static final Duration INTERVAL = Duration.ofSeconds(5);

    private final KfpContext kfp;
    private final Path statusFile;
    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, AtomicReference<Double>> values = new HashMap<>();
    private final Counter failedRounds;
    private final HttpServer server;

    public Exporter(KfpContext kfp, String address, int port, Path statusFile) throws IOException {
        this.kfp = kfp;
        this.statusFile = statusFile;
        this.failedRounds =
                Counter.builder("kfp.exporter.failed.rounds")
                        .description("rounds in which Kafka or the cluster did not answer")
                        .register(registry);
        this.server = HttpServer.create(new InetSocketAddress(address, port), 0);
        server.createContext(
                "/metrics",
                exchange -> {
                    byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders()
                            .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
    }

    /** Serves and gathers until the process is stopped. */
    public void run() throws InterruptedException {
        server.start();
        while (!Thread.currentThread().isInterrupted()) {
            round();
            Thread.sleep(INTERVAL.toMillis());
        }
    }

    /** One gathering of every job's values. */
    void round() {
        String problem = null;
        JobStatusReport.Screen screen;
        try {
            screen = JobStatusReport.gatherAll(kfp, List.of());
        } catch (RuntimeException e) {
            failedRounds.increment();
            status("failed: " + e);
            return;
        }
        if (screen.kafkaProblem() != null) {
            problem = screen.kafkaProblem();
        }
        try {
            checkpointIntervals(screen);
        } catch (RuntimeException e) {
            problem = "checkpoint intervals: " + e.getMessage();
        }
        for (JobStatusReport.View view : screen.views()) {
            Tags job = Tags.of("job_name", view.job());
            if (view.problem() != null) {
                problem = view.job() + ": " + view.problem();
            }
            if (view.group() != null || view.lag() != null) {
                set(
                        "kfp.job.lag.records",
                        "records of the job's input a read_committed reader would still get",
                        job,
                        view.lag() == null || view.lag().stream().anyMatch(p -> p.lag() < 0)
                                ? Double.NaN
                                : view.lag().stream().mapToLong(ConsumerLag.Partition::lag).sum());
            }
            if (view.prefix() != null) {
                List<KafkaTransactions.Transaction> open = view.transactions();
                set(
                        "kfp.job.open.transactions",
                        "open Kafka transactions of the job's transactional-id prefix",
                        job,
                        open == null ? Double.NaN : open.size());
                long now = System.currentTimeMillis();
                set(
                        "kfp.job.oldest.transaction.age.seconds",
                        "how long the job's oldest open transaction has been open (0: none)",
                        job,
                        open == null
                                ? Double.NaN
                                : open.stream()
                                        .map(t -> t.age(now))
                                        .filter(Objects::nonNull)
                                        .mapToDouble(d -> d.toMillis() / 1000.0)
                                        .max()
                                        .orElse(0));
            }
        }
        try {
            outputs();
        } catch (Exception e) {
            problem = "output partitions: " + e;
        }
        if (problem != null) {
            failedRounds.increment();
        }
        status(problem == null ? "ok" : problem);
    }

    /**
     * Each running job's checkpoint interval, labelled with Flink's job id as Flink's own metrics
     * are: the checkpoint alert counts in intervals (conf/prometheus/rules.yml).
     */
    private void checkpointIntervals(JobStatusReport.Screen screen) {
        List<JobStatusReport.View> running =
                screen.views().stream()
                        .filter(
                                v ->
                                        v.cluster() != null
                                                && v.cluster().state() == JobStatus.RUNNING)
                        .toList();
        if (running.isEmpty()) {
            return;
        }
        try (FlinkRest rest = kfp.rest()) {
            for (JobStatusReport.View view : running) {
                JobID id = view.cluster().id();
                set(
                        "kfp.job.checkpoint.interval.seconds",
                        "the running job's checkpoint interval",
                        Tags.of("job_name", view.job(), "job_id", id.toString()),
                        rest.checkpointInterval(id).toMillis() / 1000.0);
            }
        }
    }

    /** Per output partition of each job that writes Kafka: HW - LSO; and each timeout. */
    private void outputs() throws Exception {
        try (Admin admin = Topics.admin(kfp.settings(), Duration.ofSeconds(5))) {
            for (DeployedJob job : kfp.jobs().built()) {
                Path file = job.defaultConfig(kfp.settings());
                if (!job.spec().writesKafka() || !Files.isRegularFile(file)) {
                    continue;
                }
                Configuration config = job.settings(file, kfp.environment());
                if (JobStatusReport.transactionalIds(job, config) != null) {
                    set(
                            "kfp.job.transaction.timeout.seconds",
                            "the job's sink.transaction-timeout: the broker aborts a transaction"
                                    + " open longer",
                            Tags.of("job_name", job.name()),
                            config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT).toMillis() / 1000.0);
                }
                for (ConsumerLag.Stability p :
                        ConsumerLag.stability(admin, List.of(config.get(KafkaSinkOptions.TOPIC)))) {
                    Tags tags =
                            Tags.of(
                                    "topic",
                                    p.partition().topic(),
                                    "partition",
                                    String.valueOf(p.partition().partition()));
                    set(
                            "kfp.partition.last.stable.offset",
                            "the offset up to which read_committed readers may read",
                            tags,
                            p.stable());
                    set(
                            "kfp.partition.unstable.records",
                            "offsets between the last stable offset and the high watermark: held"
                                    + " back by open transactions",
                            tags,
                            p.heldBack());
                }
            }
        }
    }

    private void set(String name, String description, Tags tags, double value) {
        String key = name + tags;
        AtomicReference<Double> holder = values.get(key);
        if (holder == null) {
            holder = new AtomicReference<>(value);
            values.put(key, holder);
            Supplier<Number> read = holder::get;
            Gauge.builder(name, read).description(description).tags(tags).register(registry);
        }
        holder.set(value);
    }

    private void status(String outcome) {
        try {
            Files.writeString(statusFile, Instant.now() + " " + outcome + "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** What Prometheus would scrape now. */
    String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        server.stop(0);
        registry.close();
    }
}
