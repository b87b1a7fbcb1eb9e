package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.checkpoint.CheckpointOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestoreAgeCheckTest {

    @Test
    void resumingFromACheckpointOlderThanTheTransactionTimeoutIsAWarning(@TempDir Path dir)
            throws Exception {
        Path chk = Files.createDirectories(dir.resolve("chk-12"));
        Path metadata = Files.writeString(chk.resolve("_metadata"), "x");
        Configuration config = new Configuration();
        config.set(CheckpointOptions.RESTORE_FROM, chk.toString());
        config.set(KafkaSinkOptions.TRANSACTION_TIMEOUT, Duration.ofMinutes(15));
        assertThat(RestoreAgeCheck.warning(config)).as("written just now").isEmpty();

        Files.setLastModifiedTime(
                metadata,
                FileTime.fromMillis(System.currentTimeMillis() - Duration.ofHours(2).toMillis()));
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
        config.set(CheckpointOptions.RESTORE_FROM, dir.resolve("missing").toString());
        assertThat(RestoreAgeCheck.warning(config))
                .as("Flink reports a missing path itself")
                .isEmpty();
    }
}
