package io.kfp.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.ConfigProblem;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.kafka.KafkaRecord;
import io.kfp.common.preflight.BrokerView;
import io.kfp.common.testing.CapturedRun;
import io.kfp.common.testing.CollectingSink;
import io.kfp.common.testing.ListSource;
import io.kfp.common.testing.MiniClusters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.clock.ManualClock;
import org.apache.flink.util.clock.RelativeClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The production graph, with a bounded source and a collecting sink, on one MiniCluster. */
class RelayJobTest {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.withSlots(2);

    private static final long T0 = 1_767_225_600_000L;

    static Configuration config(String... args) {
        List<String> all =
                new ArrayList<>(
                        List.of(
                                "--source.topics",
                                "in",
                                "--sink.topic",
                                "out",
                                "--job.parallelism",
                                "2",
                                "--checkpoint.dir",
                                "target/checkpoints",
                                "--checkpoint.savepoint-dir",
                                "target/savepoints"));
        all.addAll(List.of(args));
        return RelayJob.SPEC.configuration(all.toArray(String[]::new));
    }

    private static List<KafkaRecord> input(int n) {
        List<KafkaRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] key = i % 7 == 0 ? null : new byte[] {(byte) (i % 5), (byte) 0xff};
            byte[] value =
                    i % 11 == 0 ? null : new byte[] {(byte) i, (byte) 0xc3, 0x28, (byte) (i >> 8)};
            KafkaRecord r = new KafkaRecord(key, value, T0 + i * 1000L, i % 4);
            if (i % 3 == 0) {
                r.headerKeys = new String[] {"seq"};
                r.headerValues = new byte[][] {String.valueOf(i).getBytes(StandardCharsets.UTF_8)};
            }
            records.add(r);
        }
        return records;
    }

    @Test
    void itsWorkflowLetsChainedOperatorsShareRecords() {
        Configuration config = config();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        assertThat(env.getConfig().isObjectReuseEnabled()).as("Flink's default").isFalse();
        new RelayJob(
                        config,
                        ListSource.of(input(1), TypeInformation.of(KafkaRecord.class)),
                        new CollectingSink<>(),
                        null)
                .addTo(env);
        assertThat(env.getConfig().isObjectReuseEnabled()).isTrue();
    }

    @Test
    void relaysEveryRecordByteForByte() throws Exception {
        List<KafkaRecord> input = input(500);
        CollectingSink<KafkaRecord> sink = new CollectingSink<>();
        Configuration config = config();
        StreamEnvironments.execute(
                config,
                new RelayJob(
                        config,
                        ListSource.of(input, TypeInformation.of(KafkaRecord.class)),
                        sink,
                        null));
        assertThat(sink.received()).containsExactlyInAnyOrderElementsOf(input);
    }

    @Test
    void windowCountEmitsOneCountPerKeyAndWindowAddingUpToTheInput() throws Exception {
        List<KafkaRecord> input = input(300); // 300 s of records: 5 one-minute windows
        CollectingSink<KafkaRecord> sink = new CollectingSink<>();
        CollectingSink<KafkaRecord> late = new CollectingSink<>();
        Configuration config =
                config("--relay.transform", "window-count", "--state.backend", "rocksdb");
        StreamEnvironments.execute(
                config,
                new RelayJob(
                        config,
                        ListSource.of(input, TypeInformation.of(KafkaRecord.class)),
                        sink,
                        late));

        List<KafkaRecord> counts = sink.received();
        long total = 0;
        Set<String> windows = new HashSet<>();
        for (KafkaRecord c : counts) {
            String json = new String(c.value, StandardCharsets.UTF_8);
            total += Long.parseLong(json.replaceAll(".*\"count\":(\\d+)}", "$1"));
            assertThat(windows.add(WindowKeys.of(c.key) + json.replaceAll(",\"count\".*", "")))
                    .as("unique")
                    .isTrue();
        }
        assertThat(total).isEqualTo(input.size());
        assertThat(windows).hasSize(6 * 5); // 5 distinct keys + no key, 5 windows
        assertThat(late.received()).isEmpty();
    }

    @Test
    void operatorsKeepTheirStableUids() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        new RelayJob(
                        config("--relay.transform", "window-count"),
                        ListSource.of(input(1), TypeInformation.of(KafkaRecord.class)),
                        new CollectingSink<>(),
                        new CollectingSink<>())
                .addTo(env);
        List<String> uids =
                env.getStreamGraph().getStreamNodes().stream()
                        .map(StreamNode::getTransformationUID)
                        .toList();
        assertThat(uids)
                .contains(
                        RelayJob.SOURCE_UID,
                        RelayJob.WINDOW_COUNT_UID,
                        RelayJob.SINK_UID,
                        RelayJob.LATE_SINK_UID);
    }

    @Test
    void anIdlePartitionStopsHoldingBackTheWatermark() {
        ManualClock clock =
                new ManualClock(
                        Duration.ofHours(1).toNanos()); // 0 means "never" to the idleness timer
        WatermarkGenerator<KafkaRecord> generator =
                RelayJob.watermarks(
                                config(
                                        "--relay.transform",
                                        "window-count",
                                        "--relay.idle-timeout",
                                        "30 s"),
                                true)
                        .createWatermarkGenerator(
                                new WatermarkGeneratorSupplier.Context() {
                                    @Override
                                    public MetricGroup getMetricGroup() {
                                        return UnregisteredMetricsGroup.createOperatorMetricGroup();
                                    }

                                    @Override
                                    public RelativeClock getInputActivityClock() {
                                        return clock;
                                    }
                                });
        List<String> events = new ArrayList<>();
        WatermarkOutput output =
                new WatermarkOutput() {
                    @Override
                    public void emitWatermark(Watermark watermark) {
                        events.add("wm " + watermark.getTimestamp());
                    }

                    @Override
                    public void markIdle() {
                        events.add("idle");
                    }

                    @Override
                    public void markActive() {
                        events.add("active");
                    }
                };
        generator.onEvent(new KafkaRecord(null, null, T0, 0), T0, output);
        generator.onPeriodicEmit(output);
        assertThat(events).containsExactly("wm " + (T0 - 5000 - 1));

        generator.onPeriodicEmit(output); // no new records since the last emit: inactivity starts
        assertThat(events).doesNotContain("idle");
        clock.advanceTime(Duration.ofSeconds(29));
        generator.onPeriodicEmit(output);
        assertThat(events).doesNotContain("idle");
        clock.advanceTime(Duration.ofSeconds(2));
        generator.onPeriodicEmit(output);
        assertThat(events).endsWith("idle");
    }

    @Test
    void mainAnswersHelpAndRejectsBadOptionsWithExitTwo() {
        CapturedRun help = CapturedRun.of(RelayJob.SPEC, "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .startsWith("relay-job: ")
                .contains(
                        "--relay.transform  (default: none)",
                        "--relay.same-partition  (default: false)",
                        "--source.offset-reset  (default: earliest)",
                        "--sink.delivery-guarantee  (default: exactly-once)");

        CapturedRun bad =
                CapturedRun.of(
                        RelayJob.SPEC,
                        "--relay.transform",
                        "window-sum",
                        "--relay.late-topic",
                        "late");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err())
                .contains("relay.transform = \"window-sum\"", "one of none, window-count")
                .contains("no input topic set", "no output topic set");
    }

    @Test
    void samePartitionNeedsAsManyOutputPartitionsAsInputPartitions() throws Exception {
        Configuration config = config("--relay.same-partition", "true");
        List<ConfigProblem> tooFew =
                RelayPreflight.check(config, broker(Map.of("in", 8, "out", 4)));
        assertThat(tooFew)
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.key()).isEqualTo("relay.same-partition");
                            assertThat(p.problem())
                                    .contains("'in' has 8 partitions", "'out' has only 4", "4..7");
                            assertThat(p.fix()).contains("--partitions 8");
                        });
        assertThat(RelayPreflight.check(config, broker(Map.of("in", 4, "out", 4)))).isEmpty();
        assertThat(RelayPreflight.check(config(), broker(Map.of("in", 8, "out", 1)))).isEmpty();
    }

    private static BrokerView broker(Map<String, Integer> partitions) {
        return new BrokerView() {
            @Override
            public void ping() {}

            @Override
            public Set<String> topicNames() {
                return partitions.keySet();
            }

            @Override
            public Map<String, Integer> partitionCounts(Collection<String> topics) {
                return partitions;
            }

            @Override
            public OptionalLong transactionMaxTimeoutMs() {
                return OptionalLong.of(900_000);
            }

            @Override
            public void close() {}
        };
    }
}
