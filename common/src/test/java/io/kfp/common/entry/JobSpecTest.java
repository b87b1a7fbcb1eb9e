package io.kfp.common.entry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.util.List;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;

/** A job declares its owner, and what it reads and writes follows from its groups. */
class JobSpecTest {

    static JobSpec.Builder copier() {
        return JobSpec.builder("copy-job", "copies")
                .group(SourceOptions.GROUP)
                .group(KafkaSinkOptions.GROUP);
    }

    @Test
    void aJobWithoutAnOwnerDoesNotConstruct() {
        assertThatThrownBy(() -> copier().workflow(c -> env -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "job copy-job: owner not set: call .owner(TEAM) on its JobSpec builder,"
                                + " e.g. .owner(\"payments\") or .owner(\"@my-org/payments\").");
        assertThatThrownBy(() -> copier().owner("two teams").workflow(c -> env -> {}))
                .hasMessageStartingWith("job copy-job: owner 'two teams' is not a team name");
        assertThat(copier().owner("@my-org/payments").workflow(c -> env -> {}).owner())
                .isEqualTo("@my-org/payments");
    }

    @Test
    void whatItReadsAndWritesFollowsFromItsGroupsAndSettings() {
        JobSpec spec = copier().owner("payments").workflow(c -> env -> {});
        assertThat(spec.readsKafka()).isTrue();
        assertThat(spec.writesKafka()).isTrue();
        JobEndpoints exactlyOnce =
                spec.endpoints(
                        spec.configuration(
                                "--source.topics",
                                "a, b",
                                "--sink.topic",
                                "c",
                                "--job.instance-id",
                                "eu"));
        assertThat(exactlyOnce.inputs()).containsExactly("a,b");
        assertThat(exactlyOnce.outputTopics()).containsExactly("c");
        assertThat(exactlyOnce.guarantee()).isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(exactlyOnce.consumerGroup()).isEqualTo("kfp.copy-job.eu");
        assertThat(exactlyOnce.transactionalIdPrefix()).isEqualTo("kfp.copy-job.eu");
        assertThat(exactlyOnce.prints()).isFalse();

        JobEndpoints atLeastOnce =
                spec.endpoints(
                        spec.configuration(
                                "--source.topic-pattern",
                                "orders-.*",
                                "--sink.topic",
                                "c",
                                "--sink.delivery-guarantee",
                                "at-least-once"));
        assertThat(atLeastOnce.inputs()).containsExactly("/orders-.*/");
        assertThat(atLeastOnce.transactionalIdPrefix()).as("no transactions").isNull();
    }

    @Test
    void whatItReadsOrPrintsBesidesKafkaIsDeclared() {
        JobSpec printer =
                JobSpec.builder("print-job", "prints")
                        .owner("payments")
                        .readsFrom(config -> "a file")
                        .prints(DeliveryGuarantee.AT_LEAST_ONCE)
                        .workflow(c -> env -> {});
        JobEndpoints endpoints = printer.endpoints(printer.configuration());
        assertThat(printer.readsKafka()).isFalse();
        assertThat(printer.writesKafka()).isFalse();
        assertThat(endpoints.inputs()).isEqualTo(List.of("a file"));
        assertThat(endpoints.prints()).isTrue();
        assertThat(endpoints.guarantee()).isEqualTo(DeliveryGuarantee.AT_LEAST_ONCE);
        assertThat(endpoints.consumerGroup()).isNull();
    }
}
