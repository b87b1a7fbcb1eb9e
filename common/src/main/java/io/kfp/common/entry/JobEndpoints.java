package io.kfp.common.entry;

import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * What a job reads and writes under one configuration, and the Kafka names it holds there: what
 * {@code kfp jobs} lists and the ownership checks compare.
 *
 * @param inputs Kafka topics (a pattern as {@code /PATTERN/}) or what it reads besides Kafka
 * @param outputTopics the Kafka topics it writes: {@code sink.topic} and the job's extra ones
 * @param sharedTopic {@code sink.shared-topic}: other jobs may write its topics too
 * @param prints it prints its records on the TaskManagers' standard output
 * @param guarantee of its output: {@code sink.delivery-guarantee}, or what it declares for printing
 * @param consumerGroup the group it commits offsets under; null when it reads no Kafka topic
 * @param transactionalIdPrefix its Kafka transactional ids' prefix; null unless it writes
 *     exactly-once
 * @param copies it writes each Kafka record it reads unchanged to its output topic
 */
public record JobEndpoints(
        List<String> inputs,
        List<String> outputTopics,
        boolean sharedTopic,
        boolean prints,
        DeliveryGuarantee guarantee,
        String consumerGroup,
        String transactionalIdPrefix,
        boolean copies) {

    public JobEndpoints {
        inputs = List.copyOf(inputs);
        outputTopics = List.copyOf(outputTopics);
    }

    static JobEndpoints of(JobSpec spec, ReadableConfig config) {
        List<String> inputs = new ArrayList<>();
        String group = null;
        if (spec.readsKafka()) {
            inputs.add(SourceOptions.describeInput(config));
            group = SourceOptions.groupId(config);
        }
        if (spec.otherInput() != null) {
            inputs.add(spec.otherInput().apply(config));
        }
        List<String> outputs = new ArrayList<>();
        DeliveryGuarantee guarantee = spec.printGuarantee();
        String prefix = null;
        boolean shared = false;
        if (spec.writesKafka()) {
            outputs.add(config.get(KafkaSinkOptions.TOPIC));
            outputs.addAll(spec.extraOutputTopics().apply(config));
            shared = config.get(KafkaSinkOptions.SHARED_TOPIC);
            guarantee = config.get(KafkaSinkOptions.DELIVERY_GUARANTEE);
            if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
                prefix = KafkaSinkOptions.transactionalIdPrefix(config);
            }
        }
        return new JobEndpoints(
                inputs,
                outputs,
                shared,
                spec.printGuarantee() != null,
                guarantee,
                group,
                prefix,
                spec.readsKafka() && spec.writesKafka() && spec.copies().test(config));
    }
}
