package io.kfp.sink;

import io.kfp.common.console.ConsoleOptions;
import io.kfp.common.console.ConsoleSink;
import io.kfp.common.console.FormattingDeserializer;
import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobProvider;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.Workflow;
import io.kfp.common.kafka.KafkaSourceFactory;
import io.kfp.common.kafka.SourceOptions;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Kafka -> console. Reads only committed records ({@code read_committed}) and prints one line per
 * record on the standard output of the TaskManager running it.
 *
 * <p>Printing cannot be rolled back: after a failure the job resumes from its last checkpoint and
 * lines printed since that checkpoint are printed again. Exactly-once ends at the Kafka topic.
 */
public final class SinkJob implements Workflow {

    /** Operator uids: part of the savepoint format. Never change them. */
    static final String SOURCE_UID = "sink-kafka-source";

    static final String CONSOLE_UID = "sink-console";

    public static final JobSpec SPEC =
            JobSpec.builder(
                            "sink-job",
                            "prints the committed records of Kafka topic(s) on the TaskManager's"
                                    + " standard output, one line per record.")
                    .owner("@kfp/platform")
                    .group(SourceOptions.GROUP)
                    .group(ConsoleOptions.GROUP)
                    .prints(DeliveryGuarantee.AT_LEAST_ONCE)
                    .defaultValue(SourceOptions.OFFSET_RESET, "latest")
                    .workflow(SinkJob::fromConfig);

    /** How kfp finds this job: named in META-INF/services/io.kfp.common.entry.JobProvider. */
    public static final class Provider implements JobProvider {
        @Override
        public JobSpec spec() {
            return SPEC;
        }
    }

    private final ReadableConfig config;
    private final Source<byte[], ?, ?> source;
    private final Sink<byte[]> sink;

    public SinkJob(ReadableConfig config, Source<byte[], ?, ?> source, Sink<byte[]> sink) {
        this.config = config;
        this.source = source;
        this.sink = sink;
    }

    /** The job reading Kafka as {@code config} says and printing to standard output. */
    public static SinkJob fromConfig(ReadableConfig config) {
        return new SinkJob(
                config,
                KafkaSourceFactory.create(config, FormattingDeserializer.of(config)),
                ConsoleSink.toStdout(config.get(ConsoleOptions.FLUSH_INTERVAL)));
    }

    /** Like {@link #fromConfig} but printing to {@code sink} (tests, the embedded pipeline). */
    public static SinkJob fromConfig(ReadableConfig config, Sink<byte[]> sink) {
        return new SinkJob(
                config, KafkaSourceFactory.create(config, FormattingDeserializer.of(config)), sink);
    }

    public static void main(String[] args) {
        JobEntryPoint.main(SPEC, args);
    }

    @Override
    public void addTo(StreamExecutionEnvironment env) {
        // Each printed line is a fresh array the console writer copies into its buffer and never
        // holds: the chained writer may take it as it is instead of a copy of every line.
        env.getConfig().enableObjectReuse();
        env.fromSource(
                        source,
                        WatermarkStrategy.noWatermarks(),
                        "kafka:" + SourceOptions.describeInput(config))
                .uid(SOURCE_UID)
                .sinkTo(sink)
                .uid(CONSOLE_UID)
                .name("console");
    }
}
