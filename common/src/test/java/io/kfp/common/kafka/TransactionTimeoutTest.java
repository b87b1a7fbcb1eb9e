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
                        Duration.ofSeconds(5), Duration.ofMillis(500), Duration.ofSeconds(60), 0);
        assertThat(required).isEqualTo(Duration.ofMillis(125_500));
        assertThat(check(required, 0)).isPresent();
        assertThat(check(required.plusMillis(1), 0)).isEmpty();
    }

    /**
     * Each failed checkpoint the job tolerates keeps the transaction it pre-committed open for
     * another interval + min pause + timeout: 10 of them at the defaults take 11 x 65.5 s + 1 min.
     */
    @Test
    void timeoutMustOutliveEveryCheckpointThatMayFailInARow() {
        Duration required =
                TransactionTimeout.requiredTimeout(
                        Duration.ofSeconds(5), Duration.ofMillis(500), Duration.ofSeconds(60), 10);
        assertThat(required).isEqualTo(Duration.ofMillis(780_500));
        TransactionTimeout.Finding finding = check(Duration.ofMinutes(10), 10).orElseThrow();
        assertThat(finding.problem())
                .contains("11 x (checkpoint.interval (5 s)", "checkpoint.tolerable-failures (10)")
                .contains("= 780.5 s", "10 min");
        assertThat(finding.fix()).contains("lower checkpoint.tolerable-failures");
        assertThat(check(Duration.ofMinutes(15), 10)).as("the default timeout").isEmpty();
    }

    private static java.util.Optional<TransactionTimeout.Finding> check(
            Duration timeout, int tolerableFailures) {
        return TransactionTimeout.checkAgainstCheckpointing(
                timeout,
                Duration.ofSeconds(5),
                Duration.ofMillis(500),
                Duration.ofSeconds(60),
                tolerableFailures);
    }
}
