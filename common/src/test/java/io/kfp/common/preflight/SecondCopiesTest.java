package io.kfp.common.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.ConfigProblem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.junit.jupiter.api.Test;

/** A lease held by another copy refuses the start once a copy that just died would have let go. */
class SecondCopiesTest {

    private static final BrokerPreflight.Requirements RELAY =
            new BrokerPreflight.Requirements(
                    "b:9092",
                    List.of("in"),
                    Optional.of("out"),
                    Optional.of(Duration.ofMinutes(15)),
                    Optional.of("kfp.relay-job.eu"),
                    Optional.of("kfp.relay-job.eu"));

    /** Time passes only when the check sleeps. */
    private static final class Clock implements SecondCopies.Clock {
        long nanos;

        @Override
        public long nanoTime() {
            return nanos;
        }

        @Override
        public void sleep(Duration duration) {
            nanos += duration.toNanos();
        }
    }

    /** A broker whose lease groups have these members, for the first {@code polls} answers. */
    private static BrokerView broker(Map<String, List<String>> members, int polls) {
        int[] asked = {0};
        return broker(
                group -> asked[0]++ < polls ? members.getOrDefault(group, List.of()) : List.of());
    }

    /** A broker that answers the lease question with {@code holders}. */
    private static BrokerView broker(Function<String, List<String>> holders) {
        return new BrokerView() {
            @Override
            public void ping() {}

            @Override
            public Set<String> topicNames() {
                return Set.of();
            }

            @Override
            public Map<String, Integer> partitionCounts(Collection<String> topics) {
                return Map.of();
            }

            @Override
            public OptionalLong transactionMaxTimeoutMs() {
                return OptionalLong.empty();
            }

            @Override
            public List<String> leaseHolders(String leaseGroup) {
                return holders.apply(leaseGroup);
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void aLeaseStillHeldAfterTheWaitIsRefusedNamingTheSettingItsHolderAndTheFix() throws Exception {
        Clock clock = new Clock();
        List<ConfigProblem> problems =
                SecondCopies.check(
                        RELAY,
                        broker(
                                Map.of(
                                        "kfp-lease.transactional-id.kfp.relay-job.eu",
                                        List.of("kfp-lease.other-name on /10.0.0.7")),
                                Integer.MAX_VALUE),
                        w -> {},
                        clock);
        assertThat(problems)
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.key()).isEqualTo("sink.transactional-id-prefix");
                            assertThat(p.value()).isEqualTo("kfp.relay-job.eu");
                            assertThat(p.describe())
                                    .contains(
                                            "another copy of this job is running with transactional-id prefix"
                                                    + " kfp.relay-job.eu (kfp-lease.other-name on /10.0.0.7 in"
                                                    + " consumer group kfp-lease.transactional-id.kfp.relay-job.eu,"
                                                    + " still there after 15 s)",
                                            "write it twice",
                                            "job.instance-id");
                        });
        assertThat(Duration.ofNanos(clock.nanos)).isEqualTo(SecondCopies.WAIT);
    }

    @Test
    void aCopyThatLetsGoWithinTheWaitDoesNotStopTheStart() throws Exception {
        Clock clock = new Clock();
        assertThat(
                        SecondCopies.check(
                                RELAY,
                                broker(
                                        Map.of(
                                                "kfp-lease.group.kfp.relay-job.eu",
                                                List.of("kfp-lease.relay-job on /127.0.0.1")),
                                        4),
                                w -> {},
                                clock))
                .isEmpty();
        assertThat(Duration.ofNanos(clock.nanos)).isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void noLeaseHeldStartsAtOnce() throws Exception {
        Clock clock = new Clock();
        assertThat(SecondCopies.check(RELAY, broker(Map.of(), 0), w -> {}, clock)).isEmpty();
        assertThat(clock.nanos).isZero();
    }

    @Test
    void aLeaseItMayNotDescribeIsAWarningNotARefusal() throws Exception {
        List<String> warnings = new ArrayList<>();
        BrokerView unauthorized =
                broker(
                        group -> {
                            throw new GroupAuthorizationException("no");
                        });
        assertThat(SecondCopies.check(RELAY, unauthorized, warnings::add, new Clock())).isEmpty();
        assertThat(warnings)
                .hasSize(2)
                .allSatisfy(
                        w ->
                                assertThat(w)
                                        .contains(
                                                "not authorized to describe consumer group kfp-lease.",
                                                "was not checked"));
    }
}
