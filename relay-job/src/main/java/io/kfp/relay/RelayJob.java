package io.kfp.relay;

import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobProvider;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.Workflow;
import io.kfp.common.kafka.KafkaRecord;
import io.kfp.common.kafka.KafkaRecordDeserializer;
import io.kfp.common.kafka.KafkaRecordFields;
import io.kfp.common.kafka.KafkaSinkFactory;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.KafkaSourceFactory;
import io.kfp.common.kafka.SourceOptions;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Kafka -> Kafka, exactly-once: the source reads only committed records and checkpoints its
 * offsets; the sink writes in a Kafka transaction per checkpoint, pre-commits it when the
 * checkpoint barrier passes and commits it when the checkpoint completes. After a failure the job
 * restarts from the last completed checkpoint: open transactions are aborted and the records since
 * are read and written again, so each record is visible exactly once.
 *
 * <p>The job takes its source and sinks, so tests run the production graph on their own bounded
 * source and collecting sink; {@link #fromConfig} wires the real Kafka ones.
 */
public final class RelayJob implements Workflow {

    /** Operator uids: part of the savepoint format. Never change them. */
    static final String SOURCE_UID = "relay-kafka-source";

    static final String WINDOW_COUNT_UID = "relay-window-count";
    static final String SINK_UID = "relay-kafka-sink";
    static final String LATE_SINK_UID = "relay-late-sink";

    public static final JobSpec SPEC =
            JobSpec.builder(
                            "relay-job",
                            "copies Kafka records from the input topic(s) to the output topic,"
                                    + " exactly-once, byte for byte (or counts them per key and"
                                    + " window).")
                    .owner("@kfp/platform")
                    .group(SourceOptions.GROUP)
                    .group(KafkaSinkOptions.GROUP)
                    .group(RelayOptions.GROUP)
                    .defaultValue(SourceOptions.STARTING_OFFSETS, "group-offsets")
                    .defaultValue(SourceOptions.OFFSET_RESET, "earliest")
                    .preflight(RelayPreflight::check)
                    .extraOutputTopics(RelayPreflight::lateTopic)
                    .copies(
                            config ->
                                    config.get(RelayOptions.TRANSFORM)
                                            == RelayOptions.Transform.NONE)
                    .workflow(RelayJob::fromConfig);

    /** How kfp finds this job: named in META-INF/services/io.kfp.common.entry.JobProvider. */
    public static final class Provider implements JobProvider {
        @Override
        public JobSpec spec() {
            return SPEC;
        }
    }

    private final ReadableConfig config;
    private final Source<KafkaRecord, ?, ?> source;
    private final Sink<KafkaRecord> sink;
    private final Sink<KafkaRecord> lateSink;
    private final UnaryOperator<DataStream<KafkaRecord>> afterSource;

    /**
     * @param lateSink where window-count's late records go; {@code null} to only count them
     */
    public RelayJob(
            ReadableConfig config,
            Source<KafkaRecord, ?, ?> source,
            Sink<KafkaRecord> sink,
            Sink<KafkaRecord> lateSink) {
        this(config, source, sink, lateSink, UnaryOperator.identity());
    }

    private RelayJob(
            ReadableConfig config,
            Source<KafkaRecord, ?, ?> source,
            Sink<KafkaRecord> sink,
            Sink<KafkaRecord> lateSink,
            UnaryOperator<DataStream<KafkaRecord>> afterSource) {
        this.config = config;
        this.source = source;
        this.sink = sink;
        this.lateSink = lateSink;
        this.afterSource = afterSource;
    }

    /**
     * The same job with {@code stage} applied to the records right after the source, before
     * window-count and the sink. For tests that inject failures into the production graph; never
     * used in production.
     */
    public RelayJob withStageAfterSource(UnaryOperator<DataStream<KafkaRecord>> stage) {
        return new RelayJob(config, source, sink, lateSink, stage);
    }

    /** The job with the Kafka source and sinks described by {@code config} (validated). */
    public static RelayJob fromConfig(ReadableConfig config) {
        Sink<KafkaRecord> lateSink =
                config.getOptional(RelayOptions.LATE_TOPIC)
                        .filter(
                                t ->
                                        config.get(RelayOptions.TRANSFORM)
                                                == RelayOptions.Transform.WINDOW_COUNT)
                        .map(topic -> lateSink(config, topic))
                        .orElse(null);
        return new RelayJob(
                config,
                KafkaSourceFactory.create(config, new KafkaRecordDeserializer()),
                KafkaSinkFactory.create(
                        config,
                        KafkaSinkFactory.serializer(
                                config, new KafkaRecordFields(), partitioner(config))),
                lateSink);
    }

    public static void main(String[] args) {
        JobEntryPoint.main(SPEC, args);
    }

    /** Adds the relay's operators to {@code env}. */
    @Override
    public void addTo(StreamExecutionEnvironment env) {
        // Records are never held after being passed on, so chained operators may share them
        // instead of copying each one.
        env.getConfig().enableObjectReuse();
        boolean windowCount =
                config.get(RelayOptions.TRANSFORM) == RelayOptions.Transform.WINDOW_COUNT;
        DataStream<KafkaRecord> records =
                afterSource.apply(
                        env.fromSource(
                                        source,
                                        watermarks(config, windowCount),
                                        "kafka:" + SourceOptions.describeInput(config))
                                .uid(SOURCE_UID));
        DataStream<KafkaRecord> out = records;
        if (windowCount) {
            SingleOutputStreamOperator<KafkaRecord> counts =
                    records.keyBy(r -> WindowKeys.of(r.key))
                            .process(
                                    new WindowCountFunction(
                                            config.get(RelayOptions.WINDOW_SIZE).toMillis(),
                                            config.get(RelayOptions.MAX_FUTURE).toMillis()))
                            .uid(WINDOW_COUNT_UID)
                            .name("window-count " + config.get(RelayOptions.WINDOW_SIZE));
            if (lateSink != null) {
                counts.getSideOutput(WindowCountFunction.LATE)
                        .sinkTo(lateSink)
                        .uid(LATE_SINK_UID)
                        .name("kafka:" + config.get(RelayOptions.LATE_TOPIC) + " (late)");
            }
            out = counts;
        }
        out.sinkTo(sink)
                .uid(SINK_UID)
                .name("kafka:" + config.getOptional(KafkaSinkOptions.TOPIC).orElse(""));
    }

    /** None for the byte-faithful path; bounded out-of-orderness with idleness for window-count. */
    static WatermarkStrategy<KafkaRecord> watermarks(ReadableConfig config, boolean windowCount) {
        if (!windowCount) {
            return WatermarkStrategy.noWatermarks();
        }
        Duration idle = config.get(RelayOptions.IDLE_TIMEOUT);
        long outOfOrderness = config.get(RelayOptions.MAX_OUT_OF_ORDERNESS).toMillis();
        long maxFuture = config.get(RelayOptions.MAX_FUTURE).toMillis();
        return WatermarkStrategy.<KafkaRecord>forGenerator(
                        context -> new PresentWatermarks(outOfOrderness, maxFuture))
                .withTimestampAssigner((record, previous) -> record.timestamp)
                .withIdleness(idle);
    }

    private static KafkaPartitioner<KafkaRecord> partitioner(ReadableConfig config) {
        return config.get(RelayOptions.SAME_PARTITION)
                ? new SamePartitionPartitioner()
                : config.get(KafkaSinkOptions.PARTITIONER).create();
    }

    /** Late records go unchanged to their own topic, in transactions of their own. */
    private static Sink<KafkaRecord> lateSink(ReadableConfig config, String topic) {
        Configuration late = new Configuration();
        config.toMap().forEach(late::setString);
        late.set(KafkaSinkOptions.TOPIC, topic);
        late.set(
                KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX,
                KafkaSinkOptions.transactionalIdPrefix(config) + ".late");
        return KafkaSinkFactory.create(late, new KafkaRecordFields());
    }
}
