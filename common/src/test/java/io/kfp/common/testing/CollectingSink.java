package io.kfp.common.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A sink that keeps every element it receives, for tests running a job on a MiniCluster in the same
 * JVM. Each instance has its own bucket, so tests do not see each other's output.
 */
public final class CollectingSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, List<Object>> BUCKETS = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    public CollectingSink() {
        BUCKETS.put(id, new ArrayList<>());
    }

    /** Everything received so far, in arrival order per writer. */
    @SuppressWarnings("unchecked")
    public List<T> received() {
        List<Object> bucket = BUCKETS.get(id);
        synchronized (bucket) {
            return (List<T>) new ArrayList<>(bucket);
        }
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        List<Object> bucket = BUCKETS.get(id);
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context ctx) {
                synchronized (bucket) {
                    bucket.add(element);
                }
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
