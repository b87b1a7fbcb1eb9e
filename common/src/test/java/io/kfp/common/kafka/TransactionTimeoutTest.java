package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransactionTimeoutTest {

    @Test
    void brokerMaximumBelowSinkTimeoutNamesBothValuesAndBothFixes() {
        TransactionTimeout.Finding f =
                TransactionTimeout.checkAgainstBroker(Duration.ofMinutes(15), 300_000)
                        .orElseThrow();
        assertThat(f.problem())
                .contains("15 min", "900000 ms", "transaction.max.timeout.ms is 300000", "5 min");
        assertThat(f.fix())
                .contains("lower sink.transaction-timeout to at most 5 min")
                .contains("raise transaction.max.timeout.ms on every broker to at least 900000");
    }

    @Test
    void equalToBrokerMaximumIsAccepted() {
        assertThat(TransactionTimeout.checkAgainstBroker(Duration.ofMinutes(15), 900_000))
                .isEmpty();
    }

    @Test
    void timeoutMustOutliveIntervalPausTimeoutAndMargin() {
        Duration required =
                TransactionTimeout.requiredTimeout(
                        Duration.ofSeconds(5), Duration.ofMillis(500), Duration.ofSeconds(60));
        assertThat(required).isEqualTo(Duration.ofMillis(125_500));
        assertThat(
                        TransactionTimeout.checkAgainstCheckpointing(
                                required,
                                Duration.ofSeconds(5),
                                Duration.ofMillis(500),
                                Duration.ofSeconds(60)))
                .isPresent();
        assertThat(
                        TransactionTimeout.checkAgainstCheckpointing(
                                required.plusMillis(1),
                                Duration.ofSeconds(5),
                                Duration.ofMillis(500),
                                Duration.ofSeconds(60)))
                .isEmpty();
    }
}
