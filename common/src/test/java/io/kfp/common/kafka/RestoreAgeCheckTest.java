package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoreAgeCheckTest {

    @Test
    void resumingFromACheckpointOlderThanTheTransactionTimeoutIsAWarning(
            @TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path chk = java.nio.file.Files.createDirectories(dir.resolve("chk-12"));
        java.nio.file.Path metadata =
                java.nio.file.Files.writeString(chk.resolve("_metadata"), "x");
        Configuration config = new Configuration();
        config.set(io.kfp.common.checkpoint.CheckpointOptions.RESTORE_FROM, chk.toString());
        config.set(KafkaSinkOptions.TRANSACTION_TIMEOUT, Duration.ofMinutes(15));
        assertThat(RestoreAgeCheck.warning(config)).as("written just now").isEmpty();

        java.nio.file.Files.setLastModifiedTime(
                metadata,
                java.nio.file.attribute.FileTime.fromMillis(
                        System.currentTimeMillis() - Duration.ofHours(2).toMillis()));
        assertThat(RestoreAgeCheck.warning(config))
                .hasValueSatisfying(
                        w ->
                                assertThat(w)
                                        .contains(
                                                "checkpoint.restore-from "
                                                        + chk
                                                        + " was written 2 h ago")
                                        .contains("longer than sink.transaction-timeout (15 min)")
                                        .contains("sink.lost-transactions (fail)"));

        config.set(KafkaSinkOptions.DELIVERY_GUARANTEE, DeliveryGuarantee.AT_LEAST_ONCE);
        assertThat(RestoreAgeCheck.warning(config)).as("no transactions").isEmpty();
        config.set(KafkaSinkOptions.DELIVERY_GUARANTEE, DeliveryGuarantee.EXACTLY_ONCE);
        config.set(
                io.kfp.common.checkpoint.CheckpointOptions.RESTORE_FROM,
                dir.resolve("missing").toString());
        assertThat(RestoreAgeCheck.warning(config))
                .as("Flink reports a missing path itself")
                .isEmpty();
    }
}
