package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.S3Store;
import io.kfp.deploy.kafka.KafkaBroker;
import io.kfp.deploy.monitoring.Alerts;
import io.kfp.deploy.monitoring.Monitoring;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    static final Duration S3_OUTAGE = Duration.ofSeconds(30);

    /**
     * How long the store stays down at most while the drill waits for the checkpoint alert: 3
     * checkpoint intervals, a scrape and a rule evaluation (5 s each) take 25 s; the rest is slack
     * for two busy cores.
     */
    static final Duration ALERT_WITHIN = Duration.ofSeconds(90);

    static final Duration ALERT_RESOLUTION = Duration.ofMinutes(2);

    private final KfpContext kfp;
    private final Topology topology;
    private final DrillRelay relay;
    private final OutputObserver observer;
    private final FaultTargets targets;
    private final FullStrength strength;
    private final DrillClock clock;

    /** What Alertmanager showed during each store outage, when monitoring runs. */
    private final List<AlertCheck> alertChecks = new ArrayList<>();

    /** Seconds into the last store outage until its alert fired; NaN if it did not. */
    private double outageAlertFired = Double.NaN;

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
                Monitoring monitoring = new Monitoring(kfp.settings(), kfp.out(), kfp.err());
                if (!monitoring.running()) {
                    clock.say("  monitoring does not run: the checkpoint alert is not checked");
                    strike = () -> storeOutage(store, null);
                } else {
                    Alerts alerts = new Alerts(monitoring.alertmanagerUrl());
                    // An alert left from the last fault would say nothing about this one.
                    clock.await(
                            "no " + Alerts.CHECKPOINTS_STALLED + " for the relay before the outage",
                            ALERT_RESOLUTION,
                            () -> !relayAlerted(alerts));
                    strike = () -> storeOutage(store, alerts);
                    afterRecovery = () -> awaitResolution(alerts);
                }
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

    /**
     * Stops the store for {@link #S3_OUTAGE}; with {@code alerts}, for as long as the checkpoint
     * alert takes to reach Alertmanager, at most {@link #ALERT_WITHIN}.
     */
    private void storeOutage(S3Store store, Alerts alerts) {
        store.stop();
        long stopped = System.nanoTime();
        double fired = Double.NaN;
        while (true) {
            double down = (System.nanoTime() - stopped) / 1e9;
            if (alerts != null && Double.isNaN(fired) && relayAlerted(alerts)) {
                fired = down;
                clock.say(
                        String.format(
                                Locale.ROOT,
                                "  %s for the relay reached Alertmanager %.1f s after the store"
                                        + " stopped",
                                Alerts.CHECKPOINTS_STALLED,
                                fired));
            }
            boolean outageOver = down >= S3_OUTAGE.toSeconds();
            if (outageOver && (alerts == null || !Double.isNaN(fired))) {
                break;
            }
            if (down >= ALERT_WITHIN.toSeconds()) {
                clock.say(
                        "  no "
                                + Alerts.CHECKPOINTS_STALLED
                                + " at Alertmanager "
                                + ALERT_WITHIN.toSeconds()
                                + " s into the outage");
                break;
            }
            Processes.sleep(Duration.ofMillis(500));
        }
        store.start();
        outageAlertFired = fired;
    }

    /** Waits for the outage's alert to be resolved once output flows again. */
    private void awaitResolution(Alerts alerts) {
        long flowing = System.nanoTime();
        double resolved = Double.NaN;
        while ((System.nanoTime() - flowing) < ALERT_RESOLUTION.toNanos()) {
            if (!relayAlerted(alerts)) {
                resolved = (System.nanoTime() - flowing) / 1e9;
                break;
            }
            Processes.sleep(Duration.ofMillis(500));
        }
        AlertCheck done = new AlertCheck(Alerts.CHECKPOINTS_STALLED, outageAlertFired, resolved);
        alertChecks.add(done);
        clock.say("  " + done.sentence());
    }

    private static boolean relayAlerted(Alerts alerts) {
        return alerts.firing(Alerts.CHECKPOINTS_STALLED, DrillRelay.JOB_NAME);
    }

    /** What Alertmanager showed during each store outage (none when monitoring does not run). */
    List<AlertCheck> alertChecks() {
        return List.copyOf(alertChecks);
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
