package io.kfp.ingest;

import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobProvider;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.Workflow;
import io.kfp.common.kafka.KafkaSinkFactory;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.socket.LineRecord;
import io.kfp.common.socket.SocketLineSource;
import io.kfp.common.socket.SocketOptions;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Socket text lines -> Kafka topic, each line's bytes as they came (see {@code socket.malformed}).
 * At-least-once by default: a socket cannot replay, so lines received after the last completed
 * checkpoint are lost on a failure whatever the sink does; exactly-once would additionally hide
 * every line until its checkpoint commits.
 */
public final class IngestJob implements Workflow {

    /** Operator uids: part of the savepoint format. Never change them. */
    static final String SOURCE_UID = "ingest-socket-source";

    static final String SINK_UID = "ingest-kafka-sink";

    public static final JobSpec SPEC =
            JobSpec.builder(
                            "ingest-job",
                            "reads text lines from TCP endpoint(s) and writes each line as a record"
                                    + " to a Kafka topic.")
                    .owner("@kfp/platform")
                    .readsFrom(config -> "sockets " + config.get(SocketOptions.ENDPOINTS))
                    .group(KafkaSinkOptions.GROUP)
                    .group(SocketOptions.GROUP)
                    .defaultValue(KafkaSinkOptions.DELIVERY_GUARANTEE, "at-least-once")
                    .workflow(IngestJob::fromConfig);

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

    public IngestJob(ReadableConfig config, Source<byte[], ?, ?> source, Sink<byte[]> sink) {
        this.config = config;
        this.source = source;
        this.sink = sink;
    }

    /** The job reading the configured endpoints into the configured topic. */
    public static IngestJob fromConfig(ReadableConfig config) {
        return new IngestJob(
                config,
                new SocketLineSource(SocketOptions.settings(config)),
                KafkaSinkFactory.create(config, LineRecord.of(config)));
    }

    public static void main(String[] args) {
        JobEntryPoint.main(SPEC, args);
    }

    @Override
    public void addTo(StreamExecutionEnvironment env) {
        // Each line is a fresh array the writer copies into its batch and never holds: the chained
        // writer may take it as it is instead of a copy of every line.
        env.getConfig().enableObjectReuse();
        int endpoints = SocketOptions.settings(config).endpoints().size();
        env.fromSource(
                        source,
                        WatermarkStrategy.noWatermarks(),
                        "socket:" + config.get(SocketOptions.ENDPOINTS))
                .uid(SOURCE_UID)
                // One reader per endpoint; more would have nothing to read.
                .setParallelism(endpoints)
                .sinkTo(sink)
                // Each reader chained to a Kafka writer of its own: no shuffle, no copy of the line
                // between threads. (At a higher sink parallelism the lines were rebalanced and
                // serialized across the network stack, halving the throughput.)
                .setParallelism(endpoints)
                .uid(SINK_UID)
                .name("kafka:" + config.getOptional(KafkaSinkOptions.TOPIC).orElse(""));
    }
}
