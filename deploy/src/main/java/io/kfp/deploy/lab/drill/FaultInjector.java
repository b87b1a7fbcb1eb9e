package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.S3Store;
import io.kfp.deploy.kafka.KafkaBroker;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;

/**
 * Strikes one fault at a time with kfp's own commands (kill -9 by PID, a host's link down, the
 * store stopped, stop-with-savepoint) and measures how long until committed output flows again on
 * every partition; then starts again what the fault killed.
 */
final class FaultInjector {
    static final Duration PARTITION = Duration.ofSeconds(20);
    static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(3);

    private final KfpContext kfp;
    private final Topology topology;
    private final DrillRelay relay;
    private final OutputObserver observer;
    private final FaultTargets targets;
    private final FullStrength strength;
    private final DrillClock clock;

    /** Hosts cut off right now, healed by a shutdown hook should the drill be killed. */
    private final Set<Topology.Host> partitioned = ConcurrentHashMap.newKeySet();

    FaultInjector(
            KfpContext kfp,
            DrillRelay relay,
            OutputObserver observer,
            FaultTargets targets,
            FullStrength strength,
            DrillClock clock) {
        this.kfp = kfp;
        this.topology = kfp.settings().topology();
        this.relay = relay;
        this.observer = observer;
        this.targets = targets;
        this.strength = strength;
        this.clock = clock;
    }

    /** Killed half way (Ctrl-C, a test's timeout), the drill leaves no host cut off. */
    void healOnShutdown() {
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () ->
                                        partitioned.forEach(
                                                h -> {
                                                    try {
                                                        kfp.lab().heal(h);
                                                    } catch (RuntimeException e) {
                                                        System.err.println(
                                                                "could not heal "
                                                                        + h.name()
                                                                        + ": "
                                                                        + e.getMessage());
                                                    }
                                                })));
    }

    /** Injects {@code fault} and waits until committed output flows again on every partition. */
    Recovery inject(Fault fault) throws Exception {
        clock.say("fault: " + fault.label() + " - " + fault.description);
        // Aim first (REST and Admin calls take time), then start the clock and strike.
        Runnable strike;
        Runnable afterRecovery = () -> {};
        switch (fault) {
            case KILL_LEADER_BROKER, KILL_COORDINATOR -> {
                Topology.Host broker =
                        targets.brokerHost(
                                fault == Fault.KILL_LEADER_BROKER
                                        ? targets.leaderOfMostPartitions()
                                        : targets.transactionCoordinator());
                strike = () -> kafka().kill(broker);
                afterRecovery = () -> startBroker(broker);
            }
            case ROLLING_RESTART -> {
                return rollingRestart();
            }
            case KILL_LEADER_JOBMANAGER -> {
                Topology.Host leader = targets.leadingJobManager();
                strike = () -> cluster().killJobManager(leader);
                afterRecovery = () -> cluster().startJobManager(leader);
            }
            case KILL_TASKMANAGER -> {
                int tm = targets.busyTaskManager();
                strike = () -> cluster().killTaskManager(tm);
                afterRecovery = () -> cluster().startTaskManager(tm);
            }
            case PARTITION_TASKMANAGER -> {
                // The one running the relay now: after a kill that is another host than the one
                // killed.
                int busy = targets.busyTaskManager();
                Topology.Host host = cluster().taskManagerHost(busy);
                strike = () -> partition(host);
                afterRecovery = () -> strength.taskManagerHealed(busy);
            }
            case PARTITION_LEADER_BROKER -> {
                Topology.Host host = targets.brokerHost(targets.leaderOfMostPartitions());
                strike = () -> partition(host);
            }
            case S3_OUTAGE -> {
                S3Store store = cluster().s3();
                if (store == null) {
                    throw new KfpException(
                            "the topology has no s3 host: drop s3-outage from --faults");
                }
                strike =
                        () -> {
                            store.stop();
                            Processes.sleep(Duration.ofSeconds(30));
                            store.start();
                        };
            }
            case RESCALE_UP, RESCALE_DOWN -> {
                int to = fault == Fault.RESCALE_UP ? 3 : 1;
                JobID job = relay.runningJob();
                strike =
                        () -> {
                            String savepoint = relay.stopWithSavepoint(job);
                            clock.say(
                                    "  stopped with savepoint "
                                            + savepoint
                                            + ", resuming at parallelism "
                                            + to);
                            relay.resume(savepoint, to);
                        };
            }
            case UPGRADE, FAILED_UPGRADE ->
                    strike = () -> relay.upgrade(fault == Fault.FAILED_UPGRADE);
            default -> throw new IllegalStateException(fault.name());
        }
        long t0 = System.currentTimeMillis();
        double at = clock.seconds();
        if (fault.outage) {
            // A partition or an outage blocks strike.run() for its whole length: output that flows
            // again meanwhile counts from when it did. A rescale's stopping relay commits records
            // produced after t0 itself, so there only the resumed relay's output counts.
            observer.flowingSince(t0);
        }
        strike.run();
        long ended = System.currentTimeMillis();
        clock.await(
                "committed output on every partition after " + fault.label(),
                RECOVERY_TIMEOUT,
                () -> observer.flowingSince(t0));
        long flowing = observer.flowingAt(t0);
        double recovery = (flowing - t0) / 1000.0;
        double afterEnd = fault.outage ? Math.max(0, flowing - ended) / 1000.0 : Double.NaN;
        clock.say(
                String.format(
                        Locale.ROOT,
                        "  committed output flows again on every partition %.1f s after the injection%s",
                        recovery,
                        fault.outage
                                ? String.format(
                                        Locale.ROOT, ", %.1f s after the fault ended", afterEnd)
                                : ""));
        // Starts what the fault killed; the next fault that needs it waits for it.
        afterRecovery.run();
        return new Recovery(fault, at, recovery, afterEnd);
    }

    private void partition(Topology.Host host) {
        partitioned.add(host);
        try {
            kfp.lab().partition(host);
            Processes.sleep(PARTITION);
        } finally {
            kfp.lab().heal(host);
            partitioned.remove(host);
        }
    }

    /**
     * One broker after the other, each stopped gracefully and started again; the longest stall is
     * its recovery.
     */
    private Recovery rollingRestart() {
        double at = clock.seconds();
        double worst = 0;
        for (Topology.Host broker : topology.with(Topology.Role.KAFKA)) {
            long t0 = System.currentTimeMillis();
            observer.flowingSince(t0);
            kafka().restart(broker);
            clock.await(
                    "committed output on every partition after restarting " + broker.name(),
                    RECOVERY_TIMEOUT,
                    () -> observer.flowingSince(t0));
            double stall = (observer.flowingAt(t0) - t0) / 1000.0;
            clock.say(
                    String.format(
                            Locale.ROOT,
                            "  %s restarted: committed output on every partition %.1f s after its stop began",
                            broker.name(),
                            stall));
            worst = Math.max(worst, stall);
            strength.awaitIsr();
        }
        return new Recovery(Fault.ROLLING_RESTART, at, worst, Double.NaN);
    }

    private void startBroker(Topology.Host broker) {
        int nodeId = topology.with(Topology.Role.KAFKA).indexOf(broker) + 1;
        kafka().startNode(broker, nodeId, kafka().clusterId());
    }

    private KafkaBroker kafka() {
        return kfp.kafka();
    }

    private FlinkCluster cluster() {
        return kfp.cluster();
    }
}
