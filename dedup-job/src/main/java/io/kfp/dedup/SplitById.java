package io.kfp.dedup;

import io.kfp.common.kafka.KafkaRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Records with an id go on to be deduplicated; one without (no key, or a value the pattern does not
 * match) is counted and, as dedup.missing-id says, passed on beside them or left out.
 */
final class SplitById extends ProcessFunction<KafkaRecord, KafkaRecord> {

    private static final long serialVersionUID = 1L;

    static final OutputTag<KafkaRecord> WITHOUT_ID =
            new OutputTag<>("without-id", TypeInformation.of(KafkaRecord.class));

    static final String WITHOUT_ID_METRIC = "recordsWithoutId";

    private final RecordIds ids;
    private final DedupOptions.MissingId missing;
    private transient Counter withoutId;

    SplitById(RecordIds ids, DedupOptions.MissingId missing) {
        this.ids = ids;
        this.missing = missing;
    }

    @Override
    public void open(OpenContext context) {
        withoutId = getRuntimeContext().getMetricGroup().counter(WITHOUT_ID_METRIC);
    }

    @Override
    public void processElement(KafkaRecord record, Context context, Collector<KafkaRecord> out) {
        if (ids.idOf(record) != null) {
            out.collect(record);
            return;
        }
        withoutId.inc();
        if (missing == DedupOptions.MissingId.PASS) {
            context.output(WITHOUT_ID, record);
        }
    }
}
