package io.kfp.embedded;

import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.ingest.IngestJob;
import io.kfp.ops.offsets.ConsumerLag;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import io.kfp.testkit.EmbeddedKafka;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The local pipeline's status line: lines in, each reading job's true lag ({@link ConsumerLag}:
 * records, not offsets, so transaction markers are no lag), records printed, and how long ago the
 * relay last committed (its output's last stable offset last moved).
 */
final class PipelineStatus implements AutoCloseable {

    private final Admin admin;
    private final Properties client = new Properties();
    private final LineHub hub;
    private final StatusLine line;
    private final Map<JobSpec, Configuration> configs;
    private final long printedBefore;
    private long lastStable = -1;
    private long lastCommitMs = -1;

    PipelineStatus(
            EmbeddedKafka kafka,
            LineHub hub,
            StatusLine line,
            Map<JobSpec, Configuration> configs) {
        this.admin = kafka.admin();
        this.client.setProperty(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        this.hub = hub;
        this.line = line;
        this.configs = configs;
        this.printedBefore = line.lines();
    }

    /**
     * One line, e.g. {@code ingest-job 12 lines in | relay-job lag 0 | sink-job lag 0, 12 printed |
     * last commit 3 s ago}.
     */
    String describe() throws Exception {
        long now = System.currentTimeMillis();
        long stable =
                admin.listOffsets(
                                Map.of(
                                        new TopicPartition(LocalPipeline.OUTPUT_TOPIC, 0),
                                        OffsetSpec.latest()),
                                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all()
                        .get(5, TimeUnit.SECONDS)
                        .values()
                        .iterator()
                        .next()
                        .offset();
        if (stable != lastStable) {
            lastCommitMs = lastStable < 0 && stable == 0 ? -1 : now;
            lastStable = stable;
        }
        return String.format(
                Locale.ROOT,
                "%s %d lines in | %s lag %s | %s lag %s, %d printed | last commit %s",
                IngestJob.SPEC.command(),
                hub.published(),
                RelayJob.SPEC.command(),
                lag(RelayJob.SPEC),
                SinkJob.SPEC.command(),
                lag(SinkJob.SPEC),
                line.lines() - printedBefore,
                lastCommitMs < 0 ? "none yet" : (now - lastCommitMs) / 1000 + " s ago");
    }

    private String lag(JobSpec job) {
        Configuration config = configs.get(job);
        List<ConsumerLag.Partition> partitions =
                ConsumerLag.of(
                        admin, client, SourceOptions.groupId(config), SourceOptions.topics(config));
        if (partitions.stream().allMatch(p -> p.lag() == ConsumerLag.UNKNOWN)) {
            return "- (nothing committed yet)";
        }
        long total =
                partitions.stream().mapToLong(ConsumerLag.Partition::lag).filter(l -> l >= 0).sum();
        return (partitions.stream().allMatch(ConsumerLag.Partition::exact) ? "" : "~") + total;
    }

    @Override
    public void close() {
        admin.close();
    }
}
