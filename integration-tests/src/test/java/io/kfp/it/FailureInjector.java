package io.kfp.it;

import io.kfp.common.kafka.KafkaRecord;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.testutils.junit.SharedReference;

/**
 * An identity stage put right after the relay's source that fails the job twice, once per plan:
 *
 * <ol>
 *   <li>in {@code map}, once 1,000 records passed subtask 0 after the first completed checkpoint
 *       (the sink's transaction is open and holds records);
 *   <li>in {@code snapshotState}, during the second checkpoint after the job recovered from the
 *       first failure (the barrier has not reached the sink: its transaction is still open).
 * </ol>
 *
 * It also slows the stream (1 ms every {@code recordsPerMilli} records per subtask) so that
 * checkpoints complete while the topic is still being copied. The plan is a test's shared object
 * ({@code SharedObjectsExtension}): the MiniCluster runs in the test's JVM, and the plan must
 * survive the job's restarts, which deserialize this function anew.
 */
final class FailureInjector extends RichMapFunction<KafkaRecord, KafkaRecord>
        implements CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;

    /** Shared state of one test's injections. */
    static final class Plan {
        final AtomicBoolean failedInMap = new AtomicBoolean();
        final AtomicBoolean failedInCheckpoint = new AtomicBoolean();
        final AtomicInteger completedCheckpoints = new AtomicInteger();
        final AtomicInteger completedAfterFirstFailure = new AtomicInteger();
        final AtomicInteger completedAfterSecondFailure = new AtomicInteger();
        volatile boolean enabled = true;

        int failuresInjected() {
            return (failedInMap.get() ? 1 : 0) + (failedInCheckpoint.get() ? 1 : 0);
        }
    }

    private final SharedReference<Plan> plan;
    private final int recordsPerMilli;
    private transient long seen;
    private transient long armedAt = -1;

    FailureInjector(SharedReference<Plan> plan, int recordsPerMilli) {
        this.plan = plan;
        this.recordsPerMilli = recordsPerMilli;
    }

    private boolean isFirstSubtask() {
        return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0;
    }

    @Override
    public KafkaRecord map(KafkaRecord record) throws Exception {
        seen++;
        if (seen % recordsPerMilli == 0) {
            Thread.sleep(1);
        }
        Plan plan = this.plan.get();
        if (plan.enabled
                && armedAt >= 0
                && seen - armedAt >= 1_000
                && isFirstSubtask()
                && plan.failedInMap.compareAndSet(false, true)) {
            throw new InjectedFailure(
                    "injected failure 1: a record after the first completed checkpoint");
        }
        return record;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        Plan plan = this.plan.get();
        if (plan.enabled
                && plan.failedInMap.get()
                && plan.completedAfterFirstFailure.get() >= 2
                && isFirstSubtask()
                && plan.failedInCheckpoint.compareAndSet(false, true)) {
            throw new InjectedFailure(
                    "injected failure 2: during checkpoint " + context.getCheckpointId());
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Plan plan = this.plan.get();
        if (isFirstSubtask()) {
            plan.completedCheckpoints.incrementAndGet();
            if (plan.failedInMap.get()) {
                plan.completedAfterFirstFailure.incrementAndGet();
            }
            if (plan.failedInCheckpoint.get()) {
                plan.completedAfterSecondFailure.incrementAndGet();
            }
        }
        if (armedAt < 0) {
            armedAt = seen;
        }
    }

    /** Marks our own failures in the logs. */
    static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }
}
