package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.internal.TransactionOwnership;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;

/** The switch back from pooling to incrementing naming, which the connector does not support. */
class GuardedKafkaSinkTest {

    static GuardedKafkaSink<String> sink(boolean incrementing) {
        return new GuardedKafkaSink<>(
                null,
                new LostTransactionGuard.Settings(
                        "relay-job",
                        "out",
                        KafkaSinkOptions.LostTransactions.FAIL,
                        Duration.ofMinutes(15),
                        incrementing,
                        new Properties()),
                JobLease.ofPrefix("relay-job", "kfp.relay-job.default", new Properties()));
    }

    static List<KafkaWriterState> writtenWith(TransactionOwnership ownership) {
        return List.of(new KafkaWriterState("kfp.relay-job.default", 0, 2, ownership, List.of()));
    }

    @Test
    void incrementingRefusesToRestoreAPoolingState() {
        assertThatThrownBy(
                        () ->
                                sink(true)
                                        .refuseSwitchBackFromPooling(
                                                writtenWith(
                                                        TransactionOwnership
                                                                .EXPLICIT_BY_WRITER_STATE)))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining(
                        "sink.transaction-naming is incrementing, but the checkpoint or savepoint"
                                + " relay-job resumes from was written with pooling (transactional id prefix kfp.relay-job.default)")
                .hasMessageContaining("Resume with --sink.transaction-naming pooling");
    }

    @Test
    void everyOtherCombinationRestores() {
        assertThatCode(
                        () -> {
                            sink(true)
                                    .refuseSwitchBackFromPooling(
                                            writtenWith(
                                                    TransactionOwnership.IMPLICIT_BY_SUBTASK_ID));
                            sink(true).refuseSwitchBackFromPooling(List.of());
                            sink(false)
                                    .refuseSwitchBackFromPooling(
                                            writtenWith(
                                                    TransactionOwnership.EXPLICIT_BY_WRITER_STATE));
                            sink(false)
                                    .refuseSwitchBackFromPooling(
                                            writtenWith(
                                                    TransactionOwnership.IMPLICIT_BY_SUBTASK_ID));
                        })
                .doesNotThrowAnyException();
    }
}
