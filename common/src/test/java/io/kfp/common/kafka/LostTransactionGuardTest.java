package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.Committer.CommitRequest;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

/** What the guard makes of the connector's failed commits, given what the broker says. */
class LostTransactionGuardTest {

    static final String ID = "kfp.relay-job.default-0-7";
    static final KafkaCommittable COMMITTABLE = new KafkaCommittable(42L, (short) 3, ID, null);

    final SimpleCounter lost = new SimpleCounter();

    /** A request recording how it ended. */
    static final class Request implements CommitRequest<KafkaCommittable> {
        String outcome = "pending";

        @Override
        public KafkaCommittable getCommittable() {
            return COMMITTABLE;
        }

        @Override
        public int getNumberOfRetries() {
            return 0;
        }

        @Override
        public void signalFailedWithKnownReason(Throwable t) {
            outcome = "known: " + t.getClass().getSimpleName();
        }

        @Override
        public void signalFailedWithUnknownReason(Throwable t) {
            outcome = "unknown: " + t.getClass().getSimpleName();
        }

        @Override
        public void retryLater() {
            outcome = "retry";
        }

        @Override
        public void updateAndRetryLater(KafkaCommittable committable) {
            outcome = "update";
        }

        @Override
        public void signalAlreadyCommitted() {
            outcome = "already committed";
        }
    }

    /** The connector's committer, giving up on every request as {@code fail} says. */
    static Committer<KafkaCommittable> connector(Consumer<CommitRequest<KafkaCommittable>> fail) {
        return new Committer<>() {
            @Override
            public void commit(Collection<CommitRequest<KafkaCommittable>> requests) {
                requests.forEach(fail);
            }

            @Override
            public void close() {}
        };
    }

    static final Consumer<CommitRequest<KafkaCommittable>> FENCED =
            r -> r.signalFailedWithKnownReason(new ProducerFencedException("fenced"));
    static final Consumer<CommitRequest<KafkaCommittable>> PID_MAPPING =
            r -> r.signalFailedWithUnknownReason(new InvalidPidMappingException("unknown pid"));

    static Optional<TransactionDescription> broker(
            TransactionState state, long producerId, int epoch) {
        return Optional.of(
                new TransactionDescription(
                        1, state, producerId, epoch, 60_000, OptionalLong.empty(), Set.of()));
    }

    LostTransactionGuard guard(
            KafkaSinkOptions.LostTransactions policy,
            Consumer<CommitRequest<KafkaCommittable>> connector,
            LostTransactionGuard.Lookup lookup) {
        LostTransactionGuard.Settings settings =
                new LostTransactionGuard.Settings(
                        "relay-job",
                        "orders-out",
                        policy,
                        Duration.ofMinutes(15),
                        true,
                        new Properties());
        return new LostTransactionGuard(
                connector(connector), settings, 0, OptionalLong.of(7), lost, lookup);
    }

    static List<CommitRequest<KafkaCommittable>> one(Request request) {
        return new ArrayList<>(List.of(request));
    }

    @Test
    void anAbortedTransactionStopsTheJobWithoutRestartsNamingItAndTheWaysOut() {
        Request request = new Request();
        LostTransactionGuard guard =
                guard(
                        KafkaSinkOptions.LostTransactions.FAIL,
                        FENCED,
                        id -> broker(TransactionState.COMPLETE_ABORT, 42L, 4));

        assertThatThrownBy(() -> guard.commit(one(request)))
                .isInstanceOf(SuppressRestartsException.class)
                .rootCause()
                .isInstanceOf(ProducerFencedException.class);
        assertThatThrownBy(() -> guard.commit(one(new Request())))
                .cause()
                .hasMessageContaining(
                        "Lost data: transaction "
                                + ID
                                + " (producer id 42, epoch 3, of checkpoint 7)")
                .hasMessageContaining("aborted by the broker (state CompleteAbort")
                .hasMessageContaining("sink subtask 0 wrote to orders-out")
                .hasMessageContaining("relay-job was restored from checkpoint 7")
                .hasMessageContaining("sink.transaction-timeout (15 min)")
                .hasMessageContaining("checkpoint or savepoint taken before this one")
                .hasMessageContaining("--sink.lost-transactions accept");
        assertThat(lost.getCount()).isZero();
    }

    @Test
    void acceptedLossesAreCountedAndLeftAsTheConnectorDropsThem() throws Exception {
        Request request = new Request();
        guard(
                        KafkaSinkOptions.LostTransactions.ACCEPT,
                        FENCED,
                        id -> broker(TransactionState.COMPLETE_ABORT, 42L, 3))
                .commit(one(request));
        assertThat(request.outcome).isEqualTo("known: ProducerFencedException");
        assertThat(lost.getCount()).isEqualTo(1);
    }

    @Test
    void aForgottenIdEndsTheFailoverLoopWithADecision() {
        Request request = new Request();
        LostTransactionGuard guard =
                guard(KafkaSinkOptions.LostTransactions.FAIL, PID_MAPPING, id -> Optional.empty());
        assertThatThrownBy(() -> guard.commit(one(request)))
                .isInstanceOf(SuppressRestartsException.class)
                .cause()
                .hasMessageContaining("the broker no longer knows transaction " + ID)
                .hasMessageContaining("transactional.id.expiration.ms")
                .hasMessageContaining("If it was taken by stop-with-savepoint, nothing is lost");
        assertThat(request.outcome).isEqualTo("pending");
    }

    @Test
    void aCommitThatHadAlreadyHappenedIsReportedAsCommitted() throws Exception {
        Request request = new Request();
        guard(
                        KafkaSinkOptions.LostTransactions.FAIL,
                        FENCED,
                        id -> broker(TransactionState.COMPLETE_COMMIT, 42L, 4))
                .commit(one(request));
        assertThat(request.outcome).isEqualTo("already committed");
    }

    @Test
    void anIdUsedAgainSinceGivesNoVerdictAndTheConnectorsHandlingStands() throws Exception {
        Request otherProducer = new Request();
        guard(
                        KafkaSinkOptions.LostTransactions.FAIL,
                        PID_MAPPING,
                        id -> broker(TransactionState.COMPLETE_ABORT, 99L, 3))
                .commit(one(otherProducer));
        assertThat(otherProducer.outcome).isEqualTo("unknown: InvalidPidMappingException");

        Request laterEpoch = new Request();
        guard(
                        KafkaSinkOptions.LostTransactions.FAIL,
                        FENCED,
                        id -> broker(TransactionState.ONGOING, 42L, 9))
                .commit(one(laterEpoch));
        assertThat(laterEpoch.outcome).isEqualTo("known: ProducerFencedException");
    }

    @Test
    void withoutAnAnswerFromTheBrokerTheJobFailsOverInsteadOfDroppingTheRecords() {
        Request request = new Request();
        LostTransactionGuard guard =
                guard(
                        KafkaSinkOptions.LostTransactions.FAIL,
                        FENCED,
                        id -> {
                            throw new TimeoutException("no broker");
                        });
        assertThatThrownBy(() -> guard.commit(one(request)))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(SuppressRestartsException.class)
                .hasMessageContaining("failing over to try again");
    }

    @Test
    void successfulCommitsPassUntouched() throws Exception {
        Request request = new Request();
        guard(
                        KafkaSinkOptions.LostTransactions.FAIL,
                        r -> {},
                        id -> {
                            throw new AssertionError(
                                    "the broker is asked only about failed commits");
                        })
                .commit(one(request));
        assertThat(request.outcome).isEqualTo("pending");
    }
}
