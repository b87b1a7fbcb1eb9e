package io.kfp.common.socket;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The counters of one endpoint, in the reader's metric group under {@code endpoint=<host:port>}.
 */
final class EndpointMetrics {

    final Counter lines;
    final Counter bytes;
    final Counter oversizedLinesSkipped;
    final Counter malformedLines;
    final Counter emptyLinesDropped;
    final Counter reconnects;

    /** Fragments left when a connection ended mid-line (broken, closed, dead, or idle too long). */
    final Counter unfinishedLinesDropped;

    /** Connections closed because the peer sends UTF-16 or UTF-32 (see {@link ByteOrderMark}). */
    final Counter refusedConnections;

    EndpointMetrics(MetricGroup readerGroup, Endpoint endpoint) {
        MetricGroup group = readerGroup.addGroup("endpoint", endpoint.toString());
        lines = group.counter("linesRead");
        bytes = group.counter("bytesRead");
        oversizedLinesSkipped = group.counter("oversizedLinesSkipped");
        malformedLines = group.counter("malformedLines");
        emptyLinesDropped = group.counter("emptyLinesDropped");
        reconnects = group.counter("reconnects");
        unfinishedLinesDropped = group.counter("unfinishedLinesDropped");
        refusedConnections = group.counter("refusedConnections");
    }
}
