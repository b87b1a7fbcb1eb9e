package io.kfp.common.preflight;

import io.kfp.common.config.ConfigProblem;
import io.kfp.common.kafka.JobLease;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.common.errors.GroupAuthorizationException;

/**
 * Whether another copy of the job runs, anywhere: a running job holds the {@link JobLease} of its
 * consumer group and of its transactional-id prefix, whatever its name or cluster, idle or busy. A
 * lease still held after {@link #WAIT} (a copy that has just stopped lets go at once, one whose
 * process died within {@link JobLease#SESSION_TIMEOUT}) refuses the start.
 */
final class SecondCopies {

    /** How long a start waits for a lease to end before it refuses. */
    static final Duration WAIT = JobLease.SESSION_TIMEOUT.plusSeconds(5);

    interface Clock {
        long nanoTime();

        void sleep(Duration duration) throws InterruptedException;
    }

    static final Clock SYSTEM =
            new Clock() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public void sleep(Duration duration) throws InterruptedException {
                    Thread.sleep(duration.toMillis());
                }
            };

    private SecondCopies() {}

    /** A refusal per lease another copy holds; a warning for each that could not be checked. */
    static List<ConfigProblem> check(
            BrokerPreflight.Requirements requirements,
            BrokerView view,
            Consumer<String> warnings,
            Clock clock)
            throws InterruptedException {
        record Lease(String key, String value, String what, String group) {}
        List<Lease> leases = new ArrayList<>();
        requirements
                .consumerGroup()
                .ifPresent(
                        g ->
                                leases.add(
                                        new Lease(
                                                SourceOptions.CONSUMER_GROUP.key(),
                                                g,
                                                "consumer group",
                                                JobLease.groupOf(g))));
        requirements
                .transactionalIdPrefix()
                .ifPresent(
                        p ->
                                leases.add(
                                        new Lease(
                                                KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX.key(),
                                                p,
                                                "transactional-id prefix",
                                                JobLease.prefixOf(p))));
        long deadline = clock.nanoTime() + WAIT.toNanos();
        Map<Lease, List<String>> held = new LinkedHashMap<>();
        for (Lease lease : leases) {
            List<String> holders = holders(view, lease.group(), warnings);
            while (!holders.isEmpty() && clock.nanoTime() < deadline) {
                clock.sleep(Duration.ofSeconds(1));
                holders = holders(view, lease.group(), warnings);
            }
            if (!holders.isEmpty()) {
                held.put(lease, holders);
            }
        }
        List<ConfigProblem> problems = new ArrayList<>();
        held.forEach(
                (lease, holders) ->
                        problems.add(
                                new ConfigProblem(
                                        lease.key(),
                                        lease.value(),
                                        null,
                                        "another copy of this job is running with "
                                                + lease.what()
                                                + " "
                                                + lease.value()
                                                + " ("
                                                + String.join(", ", holders)
                                                + " in consumer group "
                                                + lease.group()
                                                + ", still there after "
                                                + WAIT.toSeconds()
                                                + " s) - on this cluster or another, under this"
                                                + " name or another. Two copies would each read"
                                                + " every record and write it twice, and fence each"
                                                + " other's transactions.",
                                        "stop that copy first; or, if this is another deployment"
                                                + " (staging beside production on one Kafka), give"
                                                + " it its own job.instance-id: its consumer group"
                                                + " and transactional-id prefix follow from it.")));
        return problems;
    }

    private static List<String> holders(BrokerView view, String group, Consumer<String> warnings) {
        try {
            return view.leaseHolders(group);
        } catch (Exception e) {
            warnings.accept(
                    ExceptionUtils.findThrowable(e, GroupAuthorizationException.class).isPresent()
                            ? "not authorized to describe consumer group "
                                    + group
                                    + ": whether another copy of this job is running was not"
                                    + " checked. Allow Read on it (--preflight.print-acls prints"
                                    + " it)."
                            : "could not describe consumer group "
                                    + group
                                    + " ("
                                    + e
                                    + "): whether another copy of this job is running was not"
                                    + " checked.");
            return List.of();
        }
    }
}
