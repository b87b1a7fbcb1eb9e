package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Where a partition resumes when the offset it was checkpointed at is gone. */
class GuardedKafkaSourceTest {

    static final TopicPartition P0 = new TopicPartition("orders", 0);
    static final TopicPartition P1 = new TopicPartition("orders", 1);
    static final TopicPartition P2 = new TopicPartition("orders", 2);

    final SimpleCounter skipped = new SimpleCounter();

    /**
     * Partition 0 holds offsets 700..999, partition 1 0..999, partition 2 0..99 (recreated); the
     * group committed 500 on partitions 0 and 1, none on partition 2.
     */
    GuardedKafkaSource.Reader<String> reader(StartingOffsets.OffsetReset reset) {
        GuardedKafkaSource.Settings settings =
                new GuardedKafkaSource.Settings(
                        "relay-job", "relay-group", reset, new Properties());
        return new GuardedKafkaSource.Reader<>(
                null,
                settings,
                skipped,
                new GuardedKafkaSource.Broker() {
                    @Override
                    public Map<TopicPartition, long[]> bounds(
                            Collection<TopicPartition> partitions) {
                        return Map.of(
                                P0,
                                new long[] {700, 1000},
                                P1,
                                new long[] {0, 1000},
                                P2,
                                new long[] {0, 100});
                    }

                    @Override
                    public Map<TopicPartition, Long> committed(
                            Collection<TopicPartition> partitions) {
                        return Map.of(P0, 500L, P1, 500L);
                    }
                });
    }

    static final List<KafkaPartitionSplit> RESUMED =
            List.of(
                    new KafkaPartitionSplit(P0, 500),
                    new KafkaPartitionSplit(P1, 500),
                    new KafkaPartitionSplit(P2, 400, 900));

    @Test
    void earliestResumesAtTheOldestRecordLeftAndCountsWhatItSkips() {
        List<KafkaPartitionSplit> checked =
                reader(StartingOffsets.OffsetReset.EARLIEST).checked(RESUMED);
        assertThat(checked)
                .extracting(KafkaPartitionSplit::getStartingOffset)
                .containsExactly(700L, 500L, 0L);
        assertThat(checked.get(2).getStoppingOffset()).contains(900L);
        assertThat(skipped.getCount())
                .as("offsets deleted before the job got to them")
                .isEqualTo(200);
    }

    @Test
    void latestResumesAtTheEndAndCountsEverythingInBetween() {
        List<KafkaPartitionSplit> checked =
                reader(StartingOffsets.OffsetReset.LATEST).checked(RESUMED);
        assertThat(checked)
                .extracting(KafkaPartitionSplit::getStartingOffset)
                .containsExactly(1000L, 500L, 100L);
        assertThat(skipped.getCount()).isEqualTo(500);
    }

    @Test
    void noneFailsWithoutRestartsNamingEveryPartitionItCannotResume() {
        assertThatThrownBy(() -> reader(StartingOffsets.OffsetReset.NONE).checked(RESUMED))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("relay-job cannot resume where it stopped")
                .hasMessageContaining(
                        "orders-0: resuming at offset 500, but retention has deleted everything before"
                                + " offset 700 (200 offsets)")
                .hasMessageContaining(
                        "orders-2: resuming at offset 400, but the partition ends at offset 100")
                .hasMessageNotContaining("orders-1")
                .hasMessageContaining("--source.offset-reset earliest");
    }

    @Test
    void splitsThatStartFromAMarkerOrAnExistingOffsetAreNotTouched() {
        List<KafkaPartitionSplit> fresh =
                List.of(
                        new KafkaPartitionSplit(P0, KafkaPartitionSplit.EARLIEST_OFFSET),
                        new KafkaPartitionSplit(P1, 1000));
        assertThat(reader(StartingOffsets.OffsetReset.NONE).checked(fresh)).isEqualTo(fresh);
        assertThat(skipped.getCount()).isZero();
    }

    @Test
    void aStartFromTheGroupsOffsetsIsCheckedLikeAResume() {
        List<KafkaPartitionSplit> fromGroup =
                List.of(
                        new KafkaPartitionSplit(P0, KafkaPartitionSplit.COMMITTED_OFFSET),
                        new KafkaPartitionSplit(P1, KafkaPartitionSplit.COMMITTED_OFFSET),
                        new KafkaPartitionSplit(P2, KafkaPartitionSplit.COMMITTED_OFFSET));
        assertThat(reader(StartingOffsets.OffsetReset.EARLIEST).checked(fromGroup))
                .as("0 at its oldest record left, 1 where the group stopped, 2 never committed")
                .extracting(KafkaPartitionSplit::getStartingOffset)
                .containsExactly(700L, 500L, (long) KafkaPartitionSplit.COMMITTED_OFFSET);
        assertThat(skipped.getCount()).isEqualTo(200);
        assertThatThrownBy(() -> reader(StartingOffsets.OffsetReset.NONE).checked(fromGroup))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining(
                        "orders-0: resuming at offset 500, but retention has deleted everything before"
                                + " offset 700 (200 offsets)")
                .hasMessageNotContaining("orders-1")
                .hasMessageNotContaining("orders-2");
    }
}
