package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.JobOptions;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.junit.jupiter.api.Test;

class TransactionalIdGrowthTest {

    static Configuration every(Duration interval) {
        Configuration config = new Configuration();
        config.set(CheckpointOptions.INTERVAL, interval);
        return config;
    }

    @Test
    void theDefaultsLeaveFewEnoughIds() {
        // 5 s, one subtask: 120,960 ids over 7 days
        assertThat(TransactionalIdGrowth.idsKept(Duration.ofSeconds(5), 1)).isEqualTo(120_960);
        assertThat(TransactionalIdGrowth.warning(new Configuration())).isEmpty();
    }

    @Test
    void shortCheckpointsWithIncrementingNamingAreAWarningWithTheCountAndTheWaysOut() {
        Configuration config = every(Duration.ofMillis(100));
        config.set(JobOptions.PARALLELISM, 2);

        assertThat(TransactionalIdGrowth.warning(config))
                .hasValueSatisfying(
                        w ->
                                assertThat(w)
                                        .startsWith(
                                                "sink.transaction-naming incrementing with"
                                                        + " checkpoint.interval 100 ms:")
                                        .contains(
                                                "(20 a second at parallelism 2)",
                                                "12,096,000 ids from this job",
                                                "FLINK-34554",
                                                "Use sink.transaction-naming pooling",
                                                "a checkpoint.interval of 1210 ms or more",
                                                "a shorter transactional.id.expiration.ms"));
        // 1210 ms at parallelism 2 stays below the limit, 1209 ms does not
        assertThat(TransactionalIdGrowth.idsKept(Duration.ofMillis(1210), 2))
                .isLessThanOrEqualTo(TransactionalIdGrowth.LIMIT);
        assertThat(TransactionalIdGrowth.idsKept(Duration.ofMillis(1209), 2))
                .isGreaterThan(TransactionalIdGrowth.LIMIT);
    }

    @Test
    void withoutParallelismOneSubtaskIsCountedAndSaidSo() {
        assertThat(TransactionalIdGrowth.warning(every(Duration.ofMillis(500))))
                .hasValueSatisfying(
                        w ->
                                assertThat(w)
                                        .contains(
                                                "(2 a second for one subtask; job.parallelism is"
                                                        + " unset)",
                                                "1,209,600 ids"));
        assertThat(TransactionalIdGrowth.warning(every(Duration.ofSeconds(1)))).isEmpty();
    }

    @Test
    void poolingOrNoTransactionsLeaveNoGrowth() {
        Configuration pooling = every(Duration.ofMillis(100));
        pooling.set(KafkaSinkOptions.TRANSACTION_NAMING, TransactionNamingStrategy.POOLING);
        assertThat(TransactionalIdGrowth.warning(pooling)).isEmpty();

        Configuration atLeastOnce = every(Duration.ofMillis(100));
        atLeastOnce.set(KafkaSinkOptions.DELIVERY_GUARANTEE, DeliveryGuarantee.AT_LEAST_ONCE);
        assertThat(TransactionalIdGrowth.warning(atLeastOnce)).isEmpty();
    }
}
