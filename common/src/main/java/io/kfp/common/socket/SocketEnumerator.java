package io.kfp.common.socket;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Hands endpoint {@code i} to reader {@code i mod parallelism}, so with one reader per endpoint
 * every endpoint is read in parallel. Its state is the splits not handed out yet.
 */
final class SocketEnumerator implements SplitEnumerator<SocketSplit, Set<SocketSplit>> {

    private static final Comparator<SocketSplit> BY_INDEX =
            Comparator.comparingInt(SocketSplit::index);

    private final SplitEnumeratorContext<SocketSplit> context;
    private final boolean bounded;
    private final TreeSet<SocketSplit> unassigned = new TreeSet<>(BY_INDEX);

    SocketEnumerator(
            SplitEnumeratorContext<SocketSplit> context,
            Set<SocketSplit> unassigned,
            boolean bounded) {
        this.context = context;
        this.bounded = bounded;
        this.unassigned.addAll(unassigned);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {}

    @Override
    public void addSplitsBack(List<SocketSplit> splits, int subtaskId) {
        unassigned.addAll(splits);
        if (context.registeredReaders().containsKey(subtaskId)) {
            assignTo(subtaskId);
        }
    }

    @Override
    public void addReader(int subtaskId) {
        assignTo(subtaskId);
    }

    private void assignTo(int subtaskId) {
        int parallelism = context.currentParallelism();
        List<SocketSplit> mine = new ArrayList<>();
        for (SocketSplit split : unassigned) {
            if (split.index() % parallelism == subtaskId) {
                mine.add(split);
            }
        }
        mine.forEach(unassigned::remove);
        mine.forEach(split -> context.assignSplit(split, subtaskId));
        if (bounded) {
            // Each reader gets all of its splits at once: bounded readers may finish when
            // theirs are done.
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public Set<SocketSplit> snapshotState(long checkpointId) {
        return new TreeSet<>(unassigned);
    }

    @Override
    public void close() {}

    /** Version 1: count, then each split. */
    static final class StateSerializer implements SimpleVersionedSerializer<Set<SocketSplit>> {

        static final StateSerializer INSTANCE = new StateSerializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Set<SocketSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (SocketSplit split : splits) {
                    SocketSplit.Serializer.write(split, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public Set<SocketSplit> deserialize(int version, byte[] serialized) throws IOException {
            if (version != 1) {
                throw new IOException("unknown socket enumerator state version " + version);
            }
            Set<SocketSplit> splits = new TreeSet<>(BY_INDEX);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int count = in.readInt();
                for (int i = 0; i < count; i++) {
                    splits.add(SocketSplit.Serializer.read(1, in));
                }
            }
            return splits;
        }
    }
}
