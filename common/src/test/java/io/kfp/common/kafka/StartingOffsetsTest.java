package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StartingOffsetsTest {

    @Test
    void simpleForms() {
        assertThat(StartingOffsets.parse("group-offsets").kind())
                .isEqualTo(StartingOffsets.Kind.GROUP_OFFSETS);
        assertThat(StartingOffsets.parse(" EARLIEST ").kind())
                .isEqualTo(StartingOffsets.Kind.EARLIEST);
        assertThat(StartingOffsets.parse("latest").kind()).isEqualTo(StartingOffsets.Kind.LATEST);
    }

    @ParameterizedTest
    @CsvSource({
        "timestamp:0, 0",
        "timestamp:1767225600000, 1767225600000",
        "timestamp:2026-01-01T00:00:00Z, 1767225600000",
        "timestamp:2026-01-01T01:00:00+01:00, 1767225600000",
        "timestamp:2026-01-01T00:00:00.250Z, 1767225600250"
    })
    void timestamps(String spec, long millis) {
        StartingOffsets parsed = StartingOffsets.parse(spec);
        assertThat(parsed.kind()).isEqualTo(StartingOffsets.Kind.TIMESTAMP);
        assertThat(parsed.timestampMillis()).isEqualTo(millis);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "timestamp:|needs a time",
                "timestamp:-5|must not be negative",
                "timestamp:99999999999999999999|too large",
                "timestamp:2026-01-01|neither epoch milliseconds nor an ISO-8601",
                "timestamp:2026-01-01T00:00:00|neither epoch milliseconds nor an ISO-8601",
                "timestamp:yesterday|'yesterday'"
            })
    void badTimestamps(String spec, String message) {
        assertThatThrownBy(() -> StartingOffsets.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void specificOffsetsAllowDotsAndDashesInTopicNames() {
        StartingOffsets parsed = StartingOffsets.parse("specific:orders.v1:0:42, orders-v2:3:0");
        assertThat(parsed.specificOffsets())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                new TopicPartition("orders.v1", 0),
                                42L,
                                new TopicPartition("orders-v2", 3),
                                0L));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "specific:|at least one",
                "specific:orders|not <topic>:<partition>:<offset>",
                "specific:orders:1|not <topic>:<partition>:<offset>",
                "specific::1:2|not <topic>:<partition>:<offset>",
                "specific:orders:x:2|whole numbers",
                "specific:orders:1:two|whole numbers",
                "specific:orders:-1:2|must not be negative",
                "specific:orders:1:2,orders:1:3|listed twice",
                "from-the-start|unknown form 'from-the-start'"
            })
    void malformedSpecificOffsets(String spec, String message) {
        assertThatThrownBy(() -> StartingOffsets.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void initializersCarryTheResetStrategy() {
        assertThat(
                        StartingOffsets.parse("group-offsets")
                                .toInitializer(StartingOffsets.OffsetReset.LATEST)
                                .getAutoOffsetResetStrategy())
                .isEqualTo(OffsetResetStrategy.LATEST);
        assertThat(
                        StartingOffsets.parse("specific:t:0:1")
                                .toInitializer(StartingOffsets.OffsetReset.NONE)
                                .getAutoOffsetResetStrategy())
                .isEqualTo(OffsetResetStrategy.NONE);
        assertThat(
                        StartingOffsets.parse("earliest")
                                .toInitializer(StartingOffsets.OffsetReset.LATEST)
                                .getAutoOffsetResetStrategy())
                .isEqualTo(OffsetResetStrategy.EARLIEST);
    }
}
