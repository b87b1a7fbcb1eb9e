package io.kfp.common.kafka;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.checkpoint.FaultTolerance;
import io.kfp.common.config.ConfigValidator;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.TimeUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At submission: whether the checkpoint or savepoint a job resumes from is older than its
 * transaction timeout, so that the broker has aborted the transactions it did not commit.
 */
public final class RestoreAgeCheck {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreAgeCheck.class);

    private RestoreAgeCheck() {}

    /**
     * Warns when the checkpoint or savepoint a job resumes from ({@code checkpoint.restore-from})
     * was written longer ago than {@code sink.transaction-timeout}: its transactions, unless
     * committed before the job stopped, are aborted by now. The time is its {@code _metadata}
     * file's; when that cannot be read, Flink's restore reports the path, so there is no warning.
     */
    public static Optional<String> warning(ReadableConfig config) {
        Optional<String> from = config.getOptional(CheckpointOptions.RESTORE_FROM);
        if (from.isEmpty()
                || config.get(KafkaSinkOptions.DELIVERY_GUARANTEE)
                        != DeliveryGuarantee.EXACTLY_ONCE) {
            return Optional.empty();
        }
        Duration timeout = config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT);
        String location = FaultTolerance.location(from.get());
        Path metadata =
                new Path(
                        location.endsWith("_metadata")
                                ? location
                                : location.replaceAll("/+$", "") + "/_metadata");
        long written;
        try {
            FileStatus status = metadata.getFileSystem().getFileStatus(metadata);
            written = status.getModificationTime();
        } catch (IOException | RuntimeException e) {
            LOG.info(
                    "Could not read when {} was written ({}): its age is not checked.",
                    metadata,
                    e.toString());
            return Optional.empty();
        }
        Duration age = Duration.ofMillis(System.currentTimeMillis() - written);
        if (written <= 0 || age.compareTo(timeout) <= 0) {
            return Optional.empty();
        }
        return Optional.of(
                CheckpointOptions.RESTORE_FROM.key()
                        + " "
                        + from.get()
                        + " was written "
                        + TimeUtils.formatWithHighestUnit(age.withNanos(0))
                        + " ago, longer than sink.transaction-timeout ("
                        + TimeUtils.formatWithHighestUnit(timeout)
                        + "): unless its transactions were committed before the job"
                        + " stopped (stop-with-savepoint), the broker has aborted them and their records are lost. The job"
                        + " checks each as it commits it and, per sink.lost-transactions ("
                        + ConfigValidator.text(config.get(KafkaSinkOptions.LOST_TRANSACTIONS))
                        + "), stops naming it or goes on without it.");
    }
}
