package io.kfp.common.kafka;

import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.JobOptions;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's {@link KafkaSource} with its reader checking where each partition resumes. A
 * split resumed at an offset retention has deleted (from a checkpoint or savepoint, or from the
 * consumer group's committed offsets) would make the consumer jump to its reset position without a
 * word: the records in between are gone for this job. A fresh start from the group's offsets
 * ({@code group-offsets}, after a cancel) hands the reader a placeholder, not an offset: the reader
 * first asks the broker for the group's committed offset of each such partition and resumes there
 * explicitly (a partition the group never committed keeps the placeholder: it starts per {@code
 * source.offset-reset}, nothing having been read of it). Before the reader gets a split with an
 * offset, it asks the broker for the partition's oldest and newest offsets and, per {@code
 * source.offset-reset}: earliest (the default) resumes at the oldest record left, latest at the
 * end, both with a WARN naming the partition and how many offsets it skips, counted in {@value
 * #METRIC}; none fails the job without restarts, naming them. An offset beyond the end (the topic
 * was deleted and created again) is warned about and reset the same way. What it misses: records
 * deleted while the job runs and lags behind retention (the consumer resets by itself then).
 */
public final class GuardedKafkaSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>,
                ResultTypeQueryable<T>,
                LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(GuardedKafkaSource.class);

    /** Offsets skipped because retention had deleted them before the job resumed there. */
    public static final String METRIC = "kfpOffsetsSkipped";

    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaSource<T> delegate;
    private final Settings settings;

    /** What the check needs, built where the source is. */
    public record Settings(
            String job, String group, StartingOffsets.OffsetReset reset, Properties connection)
            implements Serializable {
        static Settings from(ReadableConfig config) {
            return new Settings(
                    config.getOptional(JobOptions.NAME).orElse("the job"),
                    SourceOptions.groupId(config),
                    config.get(SourceOptions.OFFSET_RESET),
                    KafkaClientOptions.connectionProperties(config));
        }
    }

    /** What the reader asks the broker. */
    interface Broker {
        /** Each partition's oldest and next offsets. */
        Map<TopicPartition, long[]> bounds(Collection<TopicPartition> partitions) throws Exception;

        /** The consumer group's committed offset of each partition it has one for. */
        Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) throws Exception;
    }

    GuardedKafkaSource(KafkaSource<T> delegate, Settings settings) {
        this.delegate = delegate;
        this.settings = settings;
    }

    /** The connector's source inside. */
    public KafkaSource<T> delegate() {
        return delegate;
    }

    @Override
    public Boundedness getBoundedness() {
        return delegate.getBoundedness();
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context)
            throws Exception {
        Reader<T> reader =
                new Reader<>(
                        delegate.createReader(context),
                        settings,
                        context.metricGroup().counter(METRIC),
                        new AdminBroker(settings));
        if (context.getIndexOfSubtask() == 0) {
            reader.lease =
                    JobLease.hold(
                            JobLease.ofGroup(
                                    settings.job(), settings.group(), settings.connection()));
        }
        return reader;
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
        return delegate.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState checkpoint)
            throws Exception {
        return delegate.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return delegate.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return delegate.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return delegate.getProducedType();
    }

    @Override
    public LineageVertex getLineageVertex() {
        return delegate.getLineageVertex();
    }

    /** The broker, asked through a short-lived admin client each time. */
    private record AdminBroker(Settings settings) implements Broker {
        @Override
        public Map<TopicPartition, long[]> bounds(Collection<TopicPartition> partitions)
                throws Exception {
            try (Admin admin = Admin.create(settings.connection())) {
                Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                partitions.forEach(
                        tp -> {
                            earliest.put(tp, OffsetSpec.earliest());
                            latest.put(tp, OffsetSpec.latest());
                        });
                // Both questions in flight at once: this runs while the job (re)starts.
                ListOffsetsResult firstAsked = admin.listOffsets(earliest);
                ListOffsetsResult nextAsked = admin.listOffsets(latest);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> first =
                        firstAsked.all().get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> next =
                        nextAsked.all().get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                Map<TopicPartition, long[]> bounds = new HashMap<>();
                partitions.forEach(
                        tp ->
                                bounds.put(
                                        tp,
                                        new long[] {
                                            first.get(tp).offset(), next.get(tp).offset()
                                        }));
                return bounds;
            }
        }

        @Override
        public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions)
                throws Exception {
            try (Admin admin = Admin.create(settings.connection())) {
                Map<TopicPartition, OffsetAndMetadata> offsets =
                        admin.listConsumerGroupOffsets(
                                        Map.of(
                                                settings.group(),
                                                new ListConsumerGroupOffsetsSpec()
                                                        .topicPartitions(partitions)))
                                .partitionsToOffsetAndMetadata(settings.group())
                                .get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                Map<TopicPartition, Long> committed = new HashMap<>();
                offsets.forEach(
                        (tp, offset) -> {
                            if (offset != null && offset.offset() >= 0) {
                                committed.put(tp, offset.offset());
                            }
                        });
                return committed;
            }
        }
    }

    /** The connector's reader, given splits whose start is known to exist. */
    static final class Reader<T> implements SourceReader<T, KafkaPartitionSplit> {
        private final SourceReader<T, KafkaPartitionSplit> delegate;
        private final Settings settings;
        private final Counter skipped;
        private final Broker broker;

        /** Held by subtask 0 while it runs; null elsewhere. */
        private JobLease lease;

        Reader(
                SourceReader<T, KafkaPartitionSplit> delegate,
                Settings settings,
                Counter skipped,
                Broker broker) {
            this.delegate = delegate;
            this.settings = settings;
            this.skipped = skipped;
            this.broker = broker;
        }

        @Override
        public void addSplits(List<KafkaPartitionSplit> splits) {
            delegate.addSplits(checked(splits));
        }

        /**
         * The splits with the group's committed offset in place of the placeholder that stands for
         * it, so that it is checked like any other.
         */
        private List<KafkaPartitionSplit> atCommittedOffsets(List<KafkaPartitionSplit> splits) {
            List<TopicPartition> fromGroup =
                    splits.stream()
                            .filter(
                                    s ->
                                            s.getStartingOffset()
                                                    == KafkaPartitionSplit.COMMITTED_OFFSET)
                            .map(KafkaPartitionSplit::getTopicPartition)
                            .toList();
            if (fromGroup.isEmpty()) {
                return splits;
            }
            Map<TopicPartition, Long> committed;
            try {
                committed = broker.committed(fromGroup);
            } catch (Exception e) {
                throw new IllegalStateException(
                        "could not ask the broker for the offsets consumer group "
                                + settings.group()
                                + " committed on "
                                + fromGroup
                                + " to check them before this job starts there",
                        e);
            }
            List<KafkaPartitionSplit> result = new ArrayList<>(splits.size());
            for (KafkaPartitionSplit split : splits) {
                Long offset = committed.get(split.getTopicPartition());
                result.add(
                        split.getStartingOffset() != KafkaPartitionSplit.COMMITTED_OFFSET
                                        || offset == null
                                ? split
                                : new KafkaPartitionSplit(
                                        split.getTopicPartition(),
                                        offset,
                                        split.getStoppingOffset()
                                                .orElse(KafkaPartitionSplit.NO_STOPPING_OFFSET)));
            }
            return result;
        }

        List<KafkaPartitionSplit> checked(List<KafkaPartitionSplit> given) {
            List<KafkaPartitionSplit> splits = atCommittedOffsets(given);
            List<TopicPartition> resumed =
                    splits.stream()
                            .filter(s -> s.getStartingOffset() >= 0)
                            .map(KafkaPartitionSplit::getTopicPartition)
                            .toList();
            if (resumed.isEmpty()) {
                return splits;
            }
            Map<TopicPartition, long[]> known;
            try {
                known = broker.bounds(resumed);
            } catch (Exception e) {
                // Fail over and ask again rather than let the consumer jump without a word.
                throw new IllegalStateException(
                        "could not ask the broker for the oldest and newest offsets of "
                                + resumed
                                + " to check the offsets this job resumes from",
                        e);
            }
            List<KafkaPartitionSplit> result = new ArrayList<>(splits.size());
            List<String> refused = new ArrayList<>();
            for (KafkaPartitionSplit split : splits) {
                long[] range = known.get(split.getTopicPartition());
                long start = split.getStartingOffset();
                if (start < 0 || range == null || (start >= range[0] && start <= range[1])) {
                    result.add(split);
                    continue;
                }
                String where =
                        split.getTopicPartition()
                                + ": resuming at offset "
                                + start
                                + ", but "
                                + (start < range[0]
                                        ? "retention has deleted everything before offset "
                                                + range[0]
                                                + " ("
                                                + (range[0] - start)
                                                + " offsets)"
                                        : "the partition ends at offset "
                                                + range[1]
                                                + " (was the topic deleted and created again?)");
                if (settings.reset() == StartingOffsets.OffsetReset.NONE) {
                    refused.add(where);
                    continue;
                }
                long to =
                        settings.reset() == StartingOffsets.OffsetReset.EARLIEST
                                ? range[0]
                                : range[1];
                if (start < range[0]) {
                    long lost = to - start;
                    skipped.inc(lost);
                    LOG.warn(
                            "{}; resuming at offset {} instead (source.offset-reset={}): {} {} of this partition"
                                    + " will not be read. Raise the topic's retention.ms, or keep the job from falling"
                                    + " behind it, so it does not happen again.",
                            where,
                            to,
                            ConfigValidator.text(settings.reset()),
                            lost,
                            lost == 1 ? "offset" : "offsets");
                } else {
                    LOG.warn(
                            "{}; resuming at offset {} instead (source.offset-reset={}).",
                            where,
                            to,
                            ConfigValidator.text(settings.reset()));
                }
                result.add(
                        new KafkaPartitionSplit(
                                split.getTopicPartition(),
                                to,
                                split.getStoppingOffset()
                                        .orElse(KafkaPartitionSplit.NO_STOPPING_OFFSET)));
            }
            if (!refused.isEmpty()) {
                throw new SuppressRestartsException(
                        new IllegalStateException(
                                settings.job()
                                        + " cannot resume where it stopped - "
                                        + String.join("; ", refused)
                                        + ". source.offset-reset is none, so it does not guess. To go on from the oldest record"
                                        + " left, knowing the rest is not read, resume with --source.offset-reset earliest; to"
                                        + " read those records, restore them to the topic first."));
            }
            return result;
        }

        @Override
        public void start() {
            delegate.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            return delegate.pollNext(output);
        }

        @Override
        public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
            return delegate.snapshotState(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return delegate.isAvailable();
        }

        @Override
        public void notifyNoMoreSplits() {
            delegate.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            delegate.handleSourceEvents(event);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            delegate.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            delegate.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> pause, Collection<String> resume) {
            delegate.pauseOrResumeSplits(pause, resume);
        }

        @Override
        public void close() throws Exception {
            try {
                delegate.close();
            } finally {
                if (lease != null) {
                    lease.close();
                }
            }
        }
    }
}
