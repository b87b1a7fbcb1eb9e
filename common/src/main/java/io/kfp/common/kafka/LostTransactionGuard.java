package io.kfp.common.kafka;

import io.kfp.common.config.JobOptions;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a lost transaction loud. A transaction restored from a checkpoint or savepoint is committed
 * again when the job resumes; if the job was down longer than {@code sink.transaction-timeout}, the
 * broker has aborted it meanwhile, and the connector's committer logs an error and goes on without
 * its records (fenced, invalid state, unknown producer id); if the broker has since forgotten the
 * transactional id ({@code transactional.id.expiration.ms}), the commit throws {@code
 * InvalidPidMappingException}, the job fails over and commits it again, forever (FLINK-39072).
 *
 * <p>This committer wraps the connector's. When the connector gives up on a commit, it asks the
 * broker what became of that transactional id ({@code describeTransactions}), which is evidence the
 * connector's exception alone is not:
 *
 * <ul>
 *   <li>COMPLETE_COMMIT with the same producer id: committed before (a retry), nothing lost;
 *   <li>COMPLETE_ABORT / PREPARE_ABORT with the same producer id and its epoch or the next:
 *       aborted, its records are lost;
 *   <li>not found: forgotten; committed or aborted cannot be told;
 *   <li>anything else (the id was used again since, e.g. {@code pooling}): no verdict, the
 *       connector's own handling stands.
 * </ul>
 *
 * Aborted or forgotten ends per {@code sink.lost-transactions}: fail (the job stops without
 * restarts, naming the transaction, the checkpoint and the ways out) or accept (a warning and the
 * {@value #METRIC} metric). What it misses: a transaction whose id was reused before the commit was
 * retried, and how many records the transaction held (the committable does not say).
 *
 * <p>Before that, at submission, {@link RestoreAgeCheck} warns when the checkpoint or savepoint to
 * resume from is older than the transaction timeout, from its {@code _metadata} file's time.
 */
public final class LostTransactionGuard implements Committer<KafkaCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(LostTransactionGuard.class);

    /** Transactions found lost and accepted (sink.lost-transactions=accept). */
    public static final String METRIC = "kfpLostTransactions";

    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);

    /** What the guard knows of its job, built where the sink is. */
    public record Settings(
            String job,
            String topic,
            KafkaSinkOptions.LostTransactions policy,
            Duration transactionTimeout,
            boolean incrementingNaming,
            Properties connection)
            implements Serializable {

        static Settings from(ReadableConfig config) {
            return new Settings(
                    config.getOptional(JobOptions.NAME).orElse("the job"),
                    config.get(KafkaSinkOptions.TOPIC),
                    config.get(KafkaSinkOptions.LOST_TRANSACTIONS),
                    config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT),
                    config.get(KafkaSinkOptions.TRANSACTION_NAMING)
                            == TransactionNamingStrategy.INCREMENTING,
                    KafkaClientOptions.connectionProperties(config));
        }
    }

    /** What the broker says of a transactional id; empty when it does not know it. */
    @FunctionalInterface
    interface Lookup extends AutoCloseable {
        Optional<TransactionDescription> describe(String transactionalId) throws Exception;

        @Override
        default void close() {}
    }

    /** What became of a transaction whose commit failed. */
    enum Outcome {
        COMMITTED,
        ABORTED,
        FORGOTTEN,
        NO_VERDICT
    }

    private final Committer<KafkaCommittable> delegate;
    private final Settings settings;
    private final int subtask;
    private final OptionalLong restoredCheckpoint;
    private final Counter lost;
    private final Lookup lookup;

    LostTransactionGuard(
            Committer<KafkaCommittable> delegate, Settings settings, CommitterInitContext context) {
        this(
                delegate,
                settings,
                context.getTaskInfo().getIndexOfThisSubtask(),
                context.getRestoredCheckpointId(),
                context.metricGroup().counter(METRIC),
                new AdminLookup(settings.connection()));
    }

    LostTransactionGuard(
            Committer<KafkaCommittable> delegate,
            Settings settings,
            int subtask,
            OptionalLong restoredCheckpoint,
            Counter lost,
            Lookup lookup) {
        this.delegate = delegate;
        this.settings = settings;
        this.subtask = subtask;
        this.restoredCheckpoint = restoredCheckpoint;
        this.lost = lost;
        this.lookup = lookup;
    }

    @Override
    public void commit(Collection<CommitRequest<KafkaCommittable>> requests)
            throws IOException, InterruptedException {
        List<Watched> watched = new ArrayList<>(requests.size());
        for (CommitRequest<KafkaCommittable> request : requests) {
            watched.add(new Watched(request));
        }
        delegate.commit(new ArrayList<>(watched));
        for (Watched request : watched) {
            if (request.failure != null) {
                judge(request);
            }
        }
    }

    private void judge(Watched request) throws IOException {
        KafkaCommittable committable = request.getCommittable();
        String id = committable.getTransactionalId();
        Optional<TransactionDescription> found;
        try {
            found = lookup.describe(id);
        } catch (Exception e) {
            // Without evidence neither drop the records silently nor stop for good: fail over and
            // retry.
            throw new IOException(
                    "committing transaction "
                            + id
                            + " failed ("
                            + request.failure
                            + ") and asking the broker what became of it failed too; failing over to try again",
                    e);
        }
        Outcome outcome = outcome(committable, found);
        switch (outcome) {
            case COMMITTED -> {
                LOG.info(
                        "Transaction {} was committed before; its retried commit failed with {}: nothing lost.",
                        id,
                        request.failure.toString());
                request.original.signalAlreadyCommitted();
            }
            case NO_VERDICT -> {
                LOG.warn(
                        "Committing transaction {} failed ({}); the broker's record of that id ({}) does not tell"
                                + " whether it was committed: the connector's own handling stands.",
                        id,
                        request.failure.toString(),
                        found.map(LostTransactionGuard::describe).orElse("none"));
                request.forward();
            }
            case ABORTED, FORGOTTEN -> {
                String what = lostMessage(outcome, committable, found.orElse(null));
                if (settings.policy() == KafkaSinkOptions.LostTransactions.ACCEPT) {
                    lost.inc();
                    LOG.warn("{} Going on without them (sink.lost-transactions=accept).", what);
                    request.original.signalFailedWithKnownReason(request.failure);
                } else {
                    throw new SuppressRestartsException(
                            new IllegalStateException(
                                    what + " " + choices(outcome), request.failure));
                }
            }
        }
    }

    static Outcome outcome(KafkaCommittable committable, Optional<TransactionDescription> found) {
        if (found.isEmpty()) {
            return Outcome.FORGOTTEN;
        }
        TransactionDescription d = found.get();
        int epochsSince = d.producerEpoch() - committable.getEpoch();
        // Ending a transaction may bump the epoch by one (a timeout abort; every end with
        // transaction version 2).
        if (d.producerId() != committable.getProducerId() || epochsSince < 0 || epochsSince > 1) {
            return Outcome.NO_VERDICT;
        }
        TransactionState state = d.state();
        if (state == TransactionState.COMPLETE_COMMIT) {
            return Outcome.COMMITTED;
        }
        if (state == TransactionState.COMPLETE_ABORT || state == TransactionState.PREPARE_ABORT) {
            return Outcome.ABORTED;
        }
        return Outcome.NO_VERDICT;
    }

    private String lostMessage(Outcome verdict, KafkaCommittable c, TransactionDescription d) {
        String which =
                "transaction "
                        + c.getTransactionalId()
                        + " (producer id "
                        + c.getProducerId()
                        + ", epoch "
                        + c.getEpoch()
                        + checkpointOf(c.getTransactionalId())
                        + ")";
        String restored =
                restoredCheckpoint.isPresent()
                        ? settings.job()
                                + " was restored from checkpoint "
                                + restoredCheckpoint.getAsLong()
                        : settings.job() + " was restored from a checkpoint or savepoint";
        String records =
                "what sink subtask "
                        + subtask
                        + " wrote to "
                        + settings.topic()
                        + " in it is not there";
        if (verdict == Outcome.ABORTED) {
            return "Lost data: "
                    + which
                    + " was aborted by the broker ("
                    + describe(d)
                    + "), not committed: "
                    + records
                    + ". "
                    + restored
                    + ", and the broker aborts a transaction still open after"
                    + " sink.transaction-timeout ("
                    + TimeUtils.formatWithHighestUnit(settings.transactionTimeout())
                    + "): the job was down, or failed its checkpoints, for longer than that.";
        }
        return "Possibly lost data: the broker no longer knows "
                + which
                + " - it forgets a transactional id"
                + " transactional.id.expiration.ms (7 days by default) after its last transaction ended - so"
                + " whether it was committed cannot be told. "
                + restored
                + ". If that was taken by"
                + " stop-with-savepoint (kfp stop), it was committed before the job stopped and nothing is lost;"
                + " after a crash or a cancel it was aborted at its timeout and "
                + records
                + ".";
    }

    private static String choices(Outcome verdict) {
        String replay =
                "To write those records again, resume from the retained checkpoint or savepoint taken"
                        + " before this one (checkpoint.num-retained keeps the one before the newest): its source"
                        + " offsets come before them.";
        String accept =
                "To go on without them, resume from this one with --sink.lost-transactions accept.";
        String stop =
                "The job stops instead of going on with a gap (sink.lost-transactions=fail). ";
        if (verdict == Outcome.FORGOTTEN) {
            return stop
                    + "If it was taken by stop-with-savepoint, nothing is lost: resume from it with"
                    + " --sink.lost-transactions accept. Otherwise: "
                    + replay
                    + " "
                    + accept;
        }
        return stop + replay + " " + accept;
    }

    /** " of checkpoint N" for incrementing ids (prefix-subtask-checkpoint), else "". */
    private String checkpointOf(String transactionalId) {
        if (!settings.incrementingNaming()) {
            return "";
        }
        String last = transactionalId.substring(transactionalId.lastIndexOf('-') + 1);
        return last.chars().allMatch(Character::isDigit) && !last.isEmpty()
                ? ", of checkpoint " + last
                : "";
    }

    private static String describe(TransactionDescription d) {
        return "state "
                + d.state()
                + ", producer id "
                + d.producerId()
                + ", epoch "
                + d.producerEpoch();
    }

    @Override
    public void close() throws Exception {
        try (lookup) {
            delegate.close();
        }
    }

    /**
     * A commit request that remembers how the connector gave up on it, to be judged before it is
     * passed on.
     */
    private static final class Watched implements CommitRequest<KafkaCommittable> {
        final CommitRequest<KafkaCommittable> original;
        Throwable failure;
        boolean knownReason;

        Watched(CommitRequest<KafkaCommittable> original) {
            this.original = original;
        }

        void forward() {
            if (knownReason) {
                original.signalFailedWithKnownReason(failure);
            } else {
                original.signalFailedWithUnknownReason(failure);
            }
        }

        @Override
        public KafkaCommittable getCommittable() {
            return original.getCommittable();
        }

        @Override
        public int getNumberOfRetries() {
            return original.getNumberOfRetries();
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            failure = t;
            knownReason = true;
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            failure = t;
            knownReason = false;
        }

        @Override
        public void retryLater() {
            original.retryLater();
        }

        @Override
        public void updateAndRetryLater(KafkaCommittable committable) {
            original.updateAndRetryLater(committable);
        }

        @Override
        public void signalAlreadyCommitted() {
            original.signalAlreadyCommitted();
        }

        @Override
        public String toString() {
            return original.toString();
        }
    }

    /** The broker's answer through an admin client, created on the first question. */
    private static final class AdminLookup implements Lookup {
        private final Properties connection;
        private Admin admin;

        AdminLookup(Properties connection) {
            this.connection = connection;
        }

        @Override
        public Optional<TransactionDescription> describe(String transactionalId) throws Exception {
            if (admin == null) {
                admin = Admin.create(connection);
            }
            try {
                return Optional.of(
                        admin.describeTransactions(List.of(transactionalId))
                                .description(transactionalId)
                                .get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TransactionalIdNotFoundException) {
                    return Optional.empty();
                }
                throw e;
            }
        }

        @Override
        public void close() {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }
}
