package io.kfp.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.kafka.KafkaRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** window-count on the operator test harness: state entries, timers, late records, restore. */
class WindowCountFunctionTest {

    private static final long MINUTE = 60_000;
    private static final long HOUR = 60 * MINUTE;
    private static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z, a window start

    private KeyedOneInputStreamOperatorTestHarness<String, KafkaRecord, KafkaRecord> harness;

    private static KeyedOneInputStreamOperatorTestHarness<String, KafkaRecord, KafkaRecord>
            newHarness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new WindowCountFunction(MINUTE, HOUR)),
                r -> WindowKeys.of(r.key),
                Types.STRING);
    }

    @BeforeEach
    void open() throws Exception {
        harness = newHarness();
        harness.open();
        harness.setProcessingTime(T0); // the TaskManager's clock
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    private static KafkaRecord record(String key, long timestamp) {
        return new KafkaRecord(
                key == null ? null : key.getBytes(StandardCharsets.ISO_8859_1),
                new byte[] {1},
                timestamp,
                0);
    }

    private void send(String key, long timestamp) throws Exception {
        harness.processElement(new StreamRecord<>(record(key, timestamp), timestamp));
    }

    private List<String> emitted() {
        return harness.extractOutputValues().stream()
                .map(
                        r ->
                                (r.key == null
                                                ? "<none>"
                                                : new String(r.key, StandardCharsets.ISO_8859_1))
                                        + " "
                                        + new String(r.value, StandardCharsets.UTF_8)
                                        + " @"
                                        + r.timestamp)
                .collect(Collectors.toList());
    }

    @Test
    void countsPerKeyAndWindowEmittedWhenTheWatermarkPassesTheWindowEnd() throws Exception {
        send("a", T0);
        send("a", T0 + 59_999);
        send("b", T0 + 10);
        send(null, T0 + 20);
        send("a", T0 + MINUTE); // next window
        assertThat(harness.numKeyedStateEntries())
                .isEqualTo(3); // one map per key: a (2 windows), b, none
        assertThat(harness.numEventTimeTimers()).isEqualTo(4); // one per key and window

        harness.processWatermark(T0 + MINUTE - 2);
        assertThat(harness.extractOutputValues()).isEmpty();

        harness.processWatermark(T0 + MINUTE - 1);
        String w0 =
                "{\"window_start\":\"2026-01-01T00:00:00Z\",\"window_end\":\"2026-01-01T00:01:00Z\",\"count\":";
        assertThat(emitted())
                .containsExactlyInAnyOrder(
                        "a " + w0 + "2} @" + (T0 + MINUTE - 1),
                        "b " + w0 + "1} @" + (T0 + MINUTE - 1),
                        "<none> " + w0 + "1} @" + (T0 + MINUTE - 1));
        assertThat(harness.numKeyedStateEntries()).isEqualTo(1);
    }

    @Test
    void lateRecordsAreCountedAndSentToTheSideOutputNotDropped() throws Exception {
        send("a", T0 + 5);
        harness.processWatermark(T0 + MINUTE);
        send("a", T0 + 7); // its window was emitted
        send("a", T0 + MINUTE + 1); // on time

        assertThat(harness.getSideOutput(WindowCountFunction.LATE))
                .extracting(StreamRecord::getValue)
                .containsExactly(record("a", T0 + 7));
        assertThat(emitted()).hasSize(1).allMatch(line -> line.contains("\"count\":1}"));
        assertThat(harness.numKeyedStateEntries()).isEqualTo(1);
    }

    /**
     * A timestamp in microseconds read as milliseconds: thousands of years ahead. It is not counted
     * in a window that would hold state until then; it goes where late records go, and the records
     * after it count as usual (the watermark does not follow it either).
     */
    @Test
    void aRecordFarAheadOfTheClockGoesWhereLateRecordsGo() throws Exception {
        long micros = (T0 + 5) * 1000;
        send("a", micros);
        send("a", T0 + HOUR); // exactly relay.max-future ahead: counted
        send("a", T0 + 7);

        assertThat(harness.getSideOutput(WindowCountFunction.LATE))
                .extracting(StreamRecord::getValue)
                .containsExactly(record("a", micros));
        harness.processWatermark(T0 + MINUTE - 1);
        assertThat(emitted()).singleElement().asString().contains("\"count\":1}");

        PresentWatermarks watermarks = new PresentWatermarks(5_000, HOUR);
        List<Long> emittedWatermarks = new ArrayList<>();
        WatermarkOutput output =
                new WatermarkOutput() {
                    @Override
                    public void emitWatermark(Watermark watermark) {
                        emittedWatermarks.add(watermark.getTimestamp());
                    }

                    @Override
                    public void markIdle() {}

                    @Override
                    public void markActive() {}
                };
        long now = System.currentTimeMillis();
        watermarks.onEvent(null, now, output);
        watermarks.onEvent(null, now * 1000, output);
        watermarks.onPeriodicEmit(output);
        assertThat(emittedWatermarks).containsExactly(now - 5_000 - 1);
    }

    @Test
    void countsSurviveSnapshotAndRestore() throws Exception {
        send("a", T0);
        send("a", T0 + 1);
        OperatorSubtaskState snapshot = harness.snapshot(1L, T0 + 2);
        send("a", T0 + 3); // after the checkpoint: lost with the failure, replayed by the source
        harness.close();

        harness = newHarness();
        harness.initializeState(snapshot);
        harness.open();
        harness.setProcessingTime(T0);
        send("a", T0 + 3); // the replay
        harness.processWatermark(T0 + MINUTE - 1);

        assertThat(emitted()).singleElement().asString().contains("\"count\":3}");
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void windowStartsAlignToTheEpoch() {
        WindowCountFunction function = new WindowCountFunction(MINUTE, HOUR);
        assertThat(function.windowStart(T0 + 59_999)).isEqualTo(T0);
        assertThat(function.windowStart(T0 + MINUTE)).isEqualTo(T0 + MINUTE);
        assertThat(function.windowStart(-1)).isEqualTo(-MINUTE);
    }

    @Test
    void keysRoundTripByteForByte() {
        byte[] binary = {(byte) 0xff, 0, (byte) 0x80, 'a'};
        assertThat(WindowKeys.bytes(WindowKeys.of(binary))).isEqualTo(binary);
        assertThat(WindowKeys.bytes(WindowKeys.of(new byte[0]))).isEmpty();
        assertThat(WindowKeys.bytes(WindowKeys.of(null))).isNull();
        assertThat(WindowKeys.of(null)).isNotEqualTo(WindowKeys.of(new byte[0]));
    }
}
