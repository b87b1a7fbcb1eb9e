package io.kfp.common.kafka;

import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink;
import org.apache.flink.connector.kafka.sink.internal.TransactionOwnership;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;

/**
 * The connector's exactly-once {@link KafkaSink} with its committer wrapped in a {@link
 * LostTransactionGuard} (subtask 0's holding the {@link JobLease} of the prefix) and its restore
 * refusing a switch back from {@code pooling} naming; everything else is the connector's, delegated
 * unchanged (writer, state, serializers, the writer/committer co-location, lineage).
 */
public final class GuardedKafkaSink<IN>
        implements TwoPhaseCommittingStatefulSink<IN, KafkaWriterState, KafkaCommittable>,
                SupportsPostCommitTopology<KafkaCommittable>,
                LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    private final KafkaSink<IN> delegate;
    private final LostTransactionGuard.Settings guard;
    private final JobLease.Claim lease;

    GuardedKafkaSink(
            KafkaSink<IN> delegate, LostTransactionGuard.Settings guard, JobLease.Claim lease) {
        this.delegate = delegate;
        this.guard = guard;
        this.lease = lease;
    }

    /** The connector's sink inside. */
    public KafkaSink<IN> delegate() {
        return delegate;
    }

    @Override
    public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> createWriter(
            WriterInitContext context) throws IOException {
        return delegate.createWriter(context);
    }

    @Override
    public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> restoreWriter(
            WriterInitContext context, Collection<KafkaWriterState> recoveredState) {
        refuseSwitchBackFromPooling(recoveredState);
        return delegate.restoreWriter(context, recoveredState);
    }

    /**
     * The connector cannot restore {@code incrementing} from a {@code pooling} state: pooling keeps
     * which transactional ids each subtask owns in its state, incrementing probes ids by checkpoint
     * number and would never find (nor abort) the pooled ones, left open to hold back every
     * read_committed reader until they time out. Refused, without restarts, before anything is
     * written.
     */
    void refuseSwitchBackFromPooling(Collection<KafkaWriterState> recoveredState) {
        if (guard.incrementingNaming()
                && recoveredState.stream()
                        .anyMatch(
                                s ->
                                        s.getTransactionOwnership()
                                                == TransactionOwnership.EXPLICIT_BY_WRITER_STATE)) {
            String prefix = recoveredState.iterator().next().getTransactionalIdPrefix();
            throw new SuppressRestartsException(
                    new IllegalStateException(
                            "sink.transaction-naming is incrementing, but the checkpoint or savepoint "
                                    + guard.job()
                                    + " resumes from was written with pooling (transactional id prefix "
                                    + prefix
                                    + "): the connector cannot switch back from pooling to incrementing on"
                                    + " restore, and transactions it left open would hold back read_committed readers."
                                    + " Resume with --sink.transaction-naming pooling. To go back to incrementing,"
                                    + " stop the job with kfp stop (its savepoint commits its transactions and source"
                                    + " offsets), then start it without restoring: it reads on from its consumer"
                                    + " group's committed offsets."));
        }
    }

    @Override
    public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
        return delegate.getWriterStateSerializer();
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context)
            throws IOException {
        Committer<KafkaCommittable> committer =
                new LostTransactionGuard(delegate.createCommitter(context), guard, context);
        return context.getTaskInfo().getIndexOfThisSubtask() == 0
                ? new Leased(committer, JobLease.hold(lease))
                : committer;
    }

    /** Subtask 0's committer, holding the lease of the job's prefix while it runs. */
    private record Leased(Committer<KafkaCommittable> committer, JobLease lease)
            implements Committer<KafkaCommittable> {
        @Override
        public void commit(Collection<CommitRequest<KafkaCommittable>> requests)
                throws IOException, InterruptedException {
            committer.commit(requests);
        }

        @Override
        public void close() throws Exception {
            try {
                committer.close();
            } finally {
                lease.close();
            }
        }
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return delegate.getCommittableSerializer();
    }

    @Override
    public void addPostCommitTopology(
            DataStream<CommittableMessage<KafkaCommittable>> committables) {
        delegate.addPostCommitTopology(committables);
    }

    @Override
    public LineageVertex getLineageVertex() {
        return delegate.getLineageVertex();
    }
}
