package io.kfp.common.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class RequiredAclsTest {

    private static final String B = "kafka:9093";

    private static Configuration config(String... keyValues) {
        Configuration c = new Configuration();
        c.setString("job.name", "relay-job");
        for (int i = 0; i < keyValues.length; i += 2) {
            c.setString(keyValues[i], keyValues[i + 1]);
        }
        return c;
    }

    private static List<String> lines(
            Configuration c, List<OptionGroup> groups, List<String> extra) {
        return RequiredAcls.kafkaAclsLines(RequiredAcls.of(c, groups, extra, "User:relay"), c, B);
    }

    @Test
    void aRelayGetsReadOnItsInputsAndGroupWriteOnItsOutputsAndItsTransactionalPrefix() {
        Configuration c =
                config("source.topics", "a, b", "sink.topic", "out", "job.instance-id", "blue");
        assertThat(lines(c, List.of(SourceOptions.GROUP, KafkaSinkOptions.GROUP), List.of("late")))
                .containsExactly(
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Read --operation Describe --topic a",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Read --operation Describe --topic b",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Read --group kfp.relay-job.blue",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Read --group kfp-lease.group.kfp.relay-job.blue",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Write --operation Describe --operation DescribeConfigs --topic out",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Write --operation Describe --operation DescribeConfigs --topic late",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Write --operation Describe"
                                + " --transactional-id kfp.relay-job.blue --resource-pattern-type prefixed",
                        "kafka-acls.sh --bootstrap-server kafka:9093 --add --allow-principal User:relay --operation Read"
                                + " --group kfp-lease.transactional-id.kfp.relay-job.blue --resource-pattern-type prefixed");
    }

    @Test
    void configuredGroupAndPrefixAreTheOnesGranted() {
        Configuration c =
                config(
                        "source.topics",
                        "in",
                        "sink.topic",
                        "out",
                        "source.group-id",
                        "g1",
                        "sink.transactional-id-prefix",
                        "tx1");
        List<AclBinding> acls =
                RequiredAcls.of(
                        c,
                        List.of(SourceOptions.GROUP, KafkaSinkOptions.GROUP),
                        List.of(),
                        "User:relay");
        assertThat(acls)
                .filteredOn(a -> a.pattern().resourceType() == ResourceType.GROUP)
                .extracting(a -> a.pattern().name())
                .as("the group, and the leases of the group and of the prefix")
                .containsExactly("g1", "kfp-lease.group.g1", "kfp-lease.transactional-id.tx1");
        assertThat(acls)
                .filteredOn(a -> a.pattern().resourceType() == ResourceType.TRANSACTIONAL_ID)
                .allSatisfy(
                        a -> {
                            assertThat(a.pattern().name()).isEqualTo("tx1");
                            assertThat(a.pattern().patternType()).isEqualTo(PatternType.PREFIXED);
                        })
                .extracting(a -> a.entry().operation())
                .containsExactly(AclOperation.WRITE, AclOperation.DESCRIBE);
    }

    @Test
    void anAtLeastOnceSinkNeedsNoTransactionalIdAndASourceAloneNoWrite() {
        Configuration writer =
                config("sink.topic", "out", "sink.delivery-guarantee", "at-least-once");
        assertThat(lines(writer, List.of(KafkaSinkOptions.GROUP), List.of()))
                .noneMatch(l -> l.contains("--transactional-id"))
                .noneMatch(l -> l.contains("--group"));
        Configuration reader = config("source.topics", "in");
        assertThat(lines(reader, List.of(SourceOptions.GROUP), List.of()))
                .noneMatch(l -> l.contains("Write"));
    }

    @Test
    void aTopicPatternIsNamedInACommentItsTopicsCannotBeListed() {
        Configuration c = config("source.topic-pattern", "orders-.*");
        assertThat(lines(c, List.of(SourceOptions.GROUP), List.of()).get(0))
                .startsWith(
                        "# source.topic-pattern /orders-.*/: also Read and Describe on every topic it matches");
    }
}
