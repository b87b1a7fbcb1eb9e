package io.kfp.relay;

import io.kfp.common.kafka.KafkaRecord;
import io.kfp.common.log.RateLimitedWarning;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts records per key in tumbling event-time windows. One keyed map entry per open window
 * (window start -> count), one event-time timer per window at its last millisecond: when the
 * watermark passes it, the count is emitted and the entry removed.
 *
 * <p>A record whose window has already been emitted is late: it is counted in the {@value
 * #LATE_METRIC} metric, logged (rate-limited) and sent to {@link #LATE}, never dropped silently. A
 * record stamped further ahead of the TaskManager's clock than {@code relay.max-future} goes there
 * too, counted in {@value #FUTURE_METRIC}: its window would hold state until that far-off time (the
 * watermark ignores it, see {@link PresentWatermarks}).
 */
public final class WindowCountFunction
        extends KeyedProcessFunction<String, KafkaRecord, KafkaRecord> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WindowCountFunction.class);

    public static final String LATE_METRIC = "lateRecords";
    public static final String FUTURE_METRIC = "futureRecords";
    public static final OutputTag<KafkaRecord> LATE = new OutputTag<>("late-records") {};

    private final long windowSizeMs;
    private final long maxFutureMs;

    private transient MapState<Long, Long> counts;
    private transient Counter late;
    private transient Counter future;
    private transient RateLimitedWarning lateWarning;
    private transient RateLimitedWarning futureWarning;

    public WindowCountFunction(long windowSizeMs, long maxFutureMs) {
        this.windowSizeMs = windowSizeMs;
        this.maxFutureMs = maxFutureMs;
    }

    @Override
    public void open(OpenContext openContext) {
        counts =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>("window-counts", Types.LONG, Types.LONG));
        late = getRuntimeContext().getMetricGroup().counter(LATE_METRIC);
        lateWarning = new RateLimitedWarning(LOG);
        future = getRuntimeContext().getMetricGroup().counter(FUTURE_METRIC);
        futureWarning = new RateLimitedWarning(LOG);
    }

    @Override
    public void processElement(KafkaRecord record, Context ctx, Collector<KafkaRecord> out)
            throws Exception {
        long timestamp = ctx.timestamp() == null ? record.timestamp : ctx.timestamp();
        long now = ctx.timerService().currentProcessingTime();
        if (PresentWatermarks.isFuture(timestamp, now, maxFutureMs)) {
            future.inc();
            futureWarning.warn(
                    "Record stamped {}, more than relay.max-future ahead of this TaskManager's"
                            + " clock ({}); {} so far in this subtask: sent where late records go"
                            + " instead of counted. Is the producer writing microseconds, or is"
                            + " its clock wrong?",
                    Instant.ofEpochMilli(timestamp),
                    Instant.ofEpochMilli(now),
                    future.getCount());
            ctx.output(LATE, record);
            return;
        }
        long start = windowStart(timestamp);
        long lastMs = start + windowSizeMs - 1;
        if (lastMs <= ctx.timerService().currentWatermark()) {
            late.inc();
            logLate(ctx.getCurrentKey(), timestamp, ctx.timerService().currentWatermark());
            ctx.output(LATE, record);
            return;
        }
        Long current = counts.get(start);
        counts.put(start, current == null ? 1L : current + 1);
        if (current == null) {
            ctx.timerService().registerEventTimeTimer(lastMs);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<KafkaRecord> out)
            throws Exception {
        long start = timestamp + 1 - windowSizeMs;
        Long count = counts.get(start);
        if (count == null) {
            return;
        }
        counts.remove(start);
        out.collect(
                result(WindowKeys.bytes(ctx.getCurrentKey()), start, start + windowSizeMs, count));
    }

    long windowStart(long timestamp) {
        return timestamp - Math.floorMod(timestamp, windowSizeMs);
    }

    /** The output record: the input key; value {"window_start":..,"window_end":..,"count":N}. */
    static KafkaRecord result(byte[] key, long start, long end, long count) {
        String json =
                "{\"window_start\":\""
                        + Instant.ofEpochMilli(start)
                        + "\",\"window_end\":\""
                        + Instant.ofEpochMilli(end)
                        + "\",\"count\":"
                        + count
                        + "}";
        return new KafkaRecord(key, json.getBytes(StandardCharsets.UTF_8), end - 1, -1);
    }

    private void logLate(String key, long timestamp, long watermark) {
        lateWarning.warn(
                "Late record (timestamp {} behind watermark {}, {} late so far in this subtask):"
                        + " its window was already emitted. Raise relay.max-out-of-orderness if"
                        + " this is expected. Key length {}.",
                Instant.ofEpochMilli(timestamp),
                Instant.ofEpochMilli(watermark),
                late.getCount(),
                WindowKeys.NO_KEY.equals(key) ? "none" : key.length());
    }
}
