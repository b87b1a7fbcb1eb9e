package io.kfp.dedup;

import io.kfp.common.kafka.KafkaRecord;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by id: passes the first record of each id and drops the others while the id is remembered -
 * one flag per id in keyed state, expired {@code retention} after it was set (processing time), in
 * RocksDB's compaction. The flag is part of every checkpoint: a record replayed after a restore
 * meets the flag of its first copy and is dropped.
 */
final class FirstOfEachId extends KeyedProcessFunction<String, KafkaRecord, KafkaRecord> {

    private static final long serialVersionUID = 1L;

    static final String DROPPED_METRIC = "duplicatesDropped";
    static final String REMEMBERED_METRIC = "idsRemembered";

    private final Duration retention;
    private transient ValueState<Boolean> seen;
    private transient Counter dropped;
    private transient Counter remembered;

    FirstOfEachId(Duration retention) {
        this.retention = retention;
    }

    @Override
    public void open(OpenContext context) {
        ValueStateDescriptor<Boolean> descriptor =
                new ValueStateDescriptor<>("seen", Types.BOOLEAN);
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(retention)
                        .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                        .cleanupInRocksdbCompactFilter(1000)
                        .build());
        seen = getRuntimeContext().getState(descriptor);
        dropped = getRuntimeContext().getMetricGroup().counter(DROPPED_METRIC);
        remembered = getRuntimeContext().getMetricGroup().counter(REMEMBERED_METRIC);
    }

    @Override
    public void processElement(KafkaRecord record, Context context, Collector<KafkaRecord> out)
            throws Exception {
        if (seen.value() != null) {
            dropped.inc();
            return;
        }
        seen.update(Boolean.TRUE);
        remembered.inc();
        out.collect(record);
    }
}
