package io.kfp.relay;

import io.kfp.common.kafka.KafkaRecord;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Flink's bounded out-of-orderness watermarks, except that a timestamp further than {@code
 * maxFutureMs} ahead of this machine's clock does not count: one record stamped in microseconds
 * taken as milliseconds would otherwise move the watermark tens of thousands of years ahead, and
 * every record after it would be late. {@link WindowCountFunction} sends such a record where late
 * ones go, by the same rule.
 */
final class PresentWatermarks implements WatermarkGenerator<KafkaRecord> {

    private final long outOfOrdernessMs;
    private final long maxFutureMs;
    private long maxTimestamp;

    PresentWatermarks(long outOfOrdernessMs, long maxFutureMs) {
        this.outOfOrdernessMs = outOfOrdernessMs;
        this.maxFutureMs = maxFutureMs;
        this.maxTimestamp = Long.MIN_VALUE + outOfOrdernessMs + 1;
    }

    @Override
    public void onEvent(KafkaRecord record, long timestamp, WatermarkOutput output) {
        if (!isFuture(timestamp, System.currentTimeMillis(), maxFutureMs)) {
            maxTimestamp = Math.max(maxTimestamp, timestamp);
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        output.emitWatermark(new Watermark(maxTimestamp - outOfOrdernessMs - 1));
    }

    /** Whether {@code timestamp} is more than {@code maxFutureMs} ahead of {@code now}. */
    static boolean isFuture(long timestamp, long now, long maxFutureMs) {
        return timestamp - now > maxFutureMs;
    }
}
