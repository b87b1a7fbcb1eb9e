package io.kfp.relay;

import io.kfp.common.config.ConfigProblem;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.preflight.BrokerView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ReadableConfig;

/** The relay's own checks against the cluster, after the common ones passed. */
final class RelayPreflight {

    private RelayPreflight() {}

    /**
     * The late-record topic, when the relay writes one (window-count with relay.late-topic set).
     */
    static List<String> lateTopic(ReadableConfig config) {
        boolean windowCount =
                config.get(RelayOptions.TRANSFORM) == RelayOptions.Transform.WINDOW_COUNT;
        return config.getOptional(RelayOptions.LATE_TOPIC).filter(t -> windowCount).stream()
                .toList();
    }

    static List<ConfigProblem> check(ReadableConfig config, BrokerView broker) throws Exception {
        List<ConfigProblem> problems = new ArrayList<>();
        Optional<String> late = lateTopic(config).stream().findFirst();
        if (late.isPresent() && !broker.topicNames().contains(late.get())) {
            problems.add(
                    new ConfigProblem(
                            RelayOptions.LATE_TOPIC.key(),
                            late.get(),
                            null,
                            "the late-record topic '" + late.get() + "' does not exist.",
                            "create it like the output topic, or unset relay.late-topic."));
        }
        if (config.get(RelayOptions.SAME_PARTITION)) {
            problems.addAll(checkSamePartition(config, broker));
        }
        return problems;
    }

    /** Every input partition i needs an output partition i. */
    static List<ConfigProblem> checkSamePartition(ReadableConfig config, BrokerView broker)
            throws Exception {
        String output = config.get(KafkaSinkOptions.TOPIC);
        List<String> inputs = SourceOptions.topics(config);
        List<String> all = new ArrayList<>(inputs);
        all.add(output);
        Map<String, Integer> partitions = broker.partitionCounts(all);
        int outputPartitions = partitions.get(output);
        List<ConfigProblem> problems = new ArrayList<>();
        if (inputs.isEmpty()) {
            problems.add(
                    new ConfigProblem(
                            RelayOptions.SAME_PARTITION.key(),
                            "true",
                            null,
                            "with source.topic-pattern the input partitions are not known before start.",
                            "list the input topics in source.topics, or set relay.same-partition=false."));
        }
        for (String input : inputs) {
            int inputPartitions = partitions.get(input);
            if (inputPartitions > outputPartitions) {
                problems.add(
                        new ConfigProblem(
                                RelayOptions.SAME_PARTITION.key(),
                                "true",
                                null,
                                "input topic '"
                                        + input
                                        + "' has "
                                        + inputPartitions
                                        + " partitions but output topic '"
                                        + output
                                        + "' has only "
                                        + outputPartitions
                                        + ": records of partitions "
                                        + outputPartitions
                                        + ".."
                                        + (inputPartitions - 1)
                                        + " would have nowhere to go.",
                                "add partitions to '"
                                        + output
                                        + "' (kafka-topics.sh --alter --topic "
                                        + output
                                        + " --partitions "
                                        + inputPartitions
                                        + "), or set relay.same-partition=false."));
            }
        }
        return problems;
    }
}
