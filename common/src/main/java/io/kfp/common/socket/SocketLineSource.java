package io.kfp.common.socket;

import java.util.Comparator;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Lines, as the bytes of their records, from one or more TCP endpoints (this source connects as a
 * client, like {@code socketTextStream}), built on the FLIP-27 source API: one split per endpoint,
 * read in parallel by up to one reader per endpoint, bounded memory whatever the peer sends,
 * reconnects with backoff, and the endpoint (not a position: a socket cannot replay) as
 * checkpointed state.
 */
public final class SocketLineSource
        implements Source<byte[], SocketSplit, Set<SocketSplit>>, ResultTypeQueryable<byte[]> {

    private static final long serialVersionUID = 1L;

    private final SocketSourceSettings settings;

    public SocketLineSource(SocketSourceSettings settings) {
        this.settings = settings;
    }

    @Override
    public Boundedness getBoundedness() {
        return settings.bounded() ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<SocketSplit, Set<SocketSplit>> createEnumerator(
            SplitEnumeratorContext<SocketSplit> context) {
        Set<SocketSplit> all = new TreeSet<>(Comparator.comparingInt(SocketSplit::index));
        for (int i = 0; i < settings.endpoints().size(); i++) {
            all.add(new SocketSplit(i, settings.endpoints().get(i)));
        }
        return new SocketEnumerator(context, all, settings.bounded());
    }

    @Override
    public SplitEnumerator<SocketSplit, Set<SocketSplit>> restoreEnumerator(
            SplitEnumeratorContext<SocketSplit> context, Set<SocketSplit> unassigned) {
        return new SocketEnumerator(context, unassigned, settings.bounded());
    }

    @Override
    public SourceReader<byte[], SocketSplit> createReader(SourceReaderContext context) {
        return new SocketSourceReader(settings, context);
    }

    @Override
    public SimpleVersionedSerializer<SocketSplit> getSplitSerializer() {
        return SocketSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<Set<SocketSplit>> getEnumeratorCheckpointSerializer() {
        return SocketEnumerator.StateSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<byte[]> getProducedType() {
        return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
    }
}
