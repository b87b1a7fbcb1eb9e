package io.kfp.common.socket;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SourceReaderBase;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcher;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcherManager;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;

/**
 * Runs one fetcher thread per endpoint assigned to this subtask and emits their lines with the time
 * they entered Flink as timestamp (ingestion time).
 */
final class SocketSourceReader extends SourceReaderBase<byte[], byte[], SocketSplit, SocketSplit> {

    SocketSourceReader(SocketSourceSettings settings, SourceReaderContext context) {
        super(
                new FetcherPerSplit(
                        () ->
                                new SocketSplitReader(
                                        settings,
                                        endpoint ->
                                                new EndpointMetrics(
                                                        context.metricGroup(), endpoint)),
                        context.getConfiguration()),
                (line, output, split) -> output.collect(line, System.currentTimeMillis()),
                context.getConfiguration(),
                context);
    }

    @Override
    protected void onSplitFinished(Map<String, SocketSplit> finishedSplitIds) {}

    @Override
    protected SocketSplit initializedState(SocketSplit split) {
        return split;
    }

    @Override
    protected SocketSplit toSplitType(String splitId, SocketSplit state) {
        return state;
    }

    /** Blocking socket reads are simplest with one thread per connection. */
    private static final class FetcherPerSplit extends SplitFetcherManager<byte[], SocketSplit> {

        FetcherPerSplit(Supplier<SplitReader<byte[], SocketSplit>> readers, Configuration config) {
            super(readers, config);
        }

        @Override
        public void addSplits(List<SocketSplit> splits) {
            for (SocketSplit split : splits) {
                SplitFetcher<byte[], SocketSplit> fetcher = createSplitFetcher();
                fetcher.addSplits(List.of(split));
                startFetcher(fetcher);
            }
        }

        @Override
        public void removeSplits(List<SocketSplit> splits) {
            throw new UnsupportedOperationException("socket splits are never removed");
        }
    }
}
