package io.kfp.dedup;

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
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * dedup-job: Kafka -> Kafka, exactly-once, dropping a record whose id - its key, or a part of its
 * value - was seen within dedup.retention. The ids seen are keyed state (RocksDB, incremental
 * checkpoints) with a time to live, so a record replayed after a failure, or written twice by an
 * at-least-once producer upstream, is dropped; the first record of each id passes byte for byte.
 * The source reads only committed records; the sink writes in a Kafka transaction per checkpoint.
 *
 * <p>The job takes its source and sink, so its unit test runs the production graph on a list and a
 * collecting sink; {@link #fromConfig} wires the real Kafka ones.
 */
public final class DedupJob implements Workflow {

    /** Operator uids: part of the savepoint format. Never change them; give new operators one. */
    static final String SOURCE_UID = "dedup-kafka-source";

    static final String SPLIT_UID = "dedup-split-by-id";
    static final String DEDUP_UID = "dedup-first-of-each-id";
    static final String SINK_UID = "dedup-kafka-sink";

    public static final JobSpec SPEC =
            JobSpec.builder(
                            "dedup-job",
                            "copies Kafka records from the input topic(s) to the output topic,"
                                    + " exactly-once, dropping those whose id was seen within"
                                    + " dedup.retention.")
                    .owner("@kfp/platform")
                    .group(SourceOptions.GROUP)
                    .group(KafkaSinkOptions.GROUP)
                    .group(DedupOptions.GROUP)
                    .workflow(DedupJob::fromConfig);

    /** How kfp finds this job: named in META-INF/services/io.kfp.common.entry.JobProvider. */
    public static final class Provider implements JobProvider {
        @Override
        public JobSpec spec() {
            return SPEC;
        }
    }

    private final ReadableConfig config;
    private final Source<KafkaRecord, ?, ?> kafkaSource;
    private final Sink<KafkaRecord> kafkaSink;

    public DedupJob(
            ReadableConfig config,
            Source<KafkaRecord, ?, ?> kafkaSource,
            Sink<KafkaRecord> kafkaSink) {
        this.config = config;
        this.kafkaSource = kafkaSource;
        this.kafkaSink = kafkaSink;
    }

    /** The job with the Kafka source and sink described by {@code config} (validated). */
    public static DedupJob fromConfig(ReadableConfig config) {
        return new DedupJob(
                config,
                KafkaSourceFactory.create(config, new KafkaRecordDeserializer()),
                KafkaSinkFactory.create(config, new KafkaRecordFields()));
    }

    public static void main(String[] args) {
        JobEntryPoint.main(SPEC, args);
    }

    @Override
    public void addTo(StreamExecutionEnvironment env) {
        DataStream<KafkaRecord> records =
                env.fromSource(
                                kafkaSource,
                                WatermarkStrategy.noWatermarks(),
                                "kafka:" + SourceOptions.describeInput(config))
                        .uid(SOURCE_UID);
        RecordIds ids = RecordIds.of(config);
        SingleOutputStreamOperator<KafkaRecord> withId =
                records.process(new SplitById(ids, config.get(DedupOptions.MISSING_ID)))
                        .uid(SPLIT_UID)
                        .name("split by id");
        DataStream<KafkaRecord> out =
                withId.keyBy(ids::idOf, Types.STRING)
                        .process(new FirstOfEachId(config.get(DedupOptions.RETENTION)))
                        .uid(DEDUP_UID)
                        .name("dedup " + config.get(DedupOptions.RETENTION));
        if (config.get(DedupOptions.MISSING_ID) == DedupOptions.MissingId.PASS) {
            out = out.union(withId.getSideOutput(SplitById.WITHOUT_ID));
        }
        out.sinkTo(kafkaSink)
                .uid(SINK_UID)
                .name("kafka:" + config.getOptional(KafkaSinkOptions.TOPIC).orElse(""));
    }
}
