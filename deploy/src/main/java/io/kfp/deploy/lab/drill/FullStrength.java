package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.kafka.Topics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;

/**
 * The lab back at full strength after a fault: every replica in sync, every TaskManager registered,
 * every JobManager answering.
 */
final class FullStrength {

    /**
     * How long a TaskManager may take to register. A fresh one starts in ~5 s on an idle lab, but
     * took 25-53 s while the drill loaded both cores (JVM start, the S3 file system, the RPC
     * system), and more than 60 s with the cluster on TLS.
     */
    static final Duration REGISTRATION_TIMEOUT = Duration.ofMinutes(2);

    private final KfpContext kfp;
    private final Topology topology;
    private final DrillClock clock;

    /** Whose replicas must be in sync: the drill's topics and Kafka's own that the relay uses. */
    private final List<String> topics;

    /**
     * The TaskManager (tm-N) whose host was partitioned and healed last, until it is seen
     * registered again; 0: none.
     */
    private int healedTaskManager;

    FullStrength(KfpContext kfp, DrillRun run, DrillClock clock) {
        this.kfp = kfp;
        this.topology = kfp.settings().topology();
        this.clock = clock;
        this.topics =
                List.of(run.input(), run.output(), "__transaction_state", "__consumer_offsets");
    }

    /** Every replica in sync, every TaskManager registered, every JobManager answering. */
    void await() {
        awaitIsr();
        awaitTaskManagers();
        awaitJobManagers();
    }

    /**
     * Tells that the host of TaskManager tm-N was partitioned and healed: if it does not register
     * again by itself, the next wait for the TaskManagers restarts it.
     */
    void taskManagerHealed(int taskManager) {
        healedTaskManager = taskManager;
    }

    /**
     * One admin client for the whole wait: a new one per poll is a connection storm on the brokers
     * being waited for.
     */
    void awaitIsr() {
        try (Admin admin = Topics.admin(kfp.settings())) {
            clock.await(
                    "every replica of the drill's topics and of the transaction log in sync",
                    Duration.ofMinutes(3),
                    () -> {
                        try {
                            boolean inSync =
                                    admin
                                            .describeTopics(topics)
                                            .allTopicNames()
                                            .get(20, TimeUnit.SECONDS)
                                            .values()
                                            .stream()
                                            .flatMap(d -> d.partitions().stream())
                                            .allMatch(
                                                    p ->
                                                            p.leader() != null
                                                                    && p.isr().size()
                                                                            == p.replicas().size());
                            if (!inSync) {
                                Processes.sleep(Duration.ofMillis(400));
                            }
                            return inSync;
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new KfpException(
                                    "drill: interrupted while waiting for the replicas",
                                    KfpException.FAILED);
                        } catch (ExecutionException | TimeoutException e) {
                            return false; // a broker still starting: asked again
                        }
                    });
        }
    }

    /**
     * Waits until every TaskManager is registered; the one last partitioned, if it does not come
     * back by itself, is restarted.
     */
    void awaitTaskManagers() {
        int restartIfMissing = healedTaskManager;
        healedTaskManager = 0;
        int expected = topology.with(Topology.Role.TASKMANAGER).size();
        long start = System.nanoTime();
        long deadline = start + REGISTRATION_TIMEOUT.toNanos();
        try (FlinkRest rest = kfp.rest()) {
            while (rest.taskManagers() < expected) {
                if (System.nanoTime() > deadline) {
                    if (restartIfMissing > 0) {
                        clock.say(
                                "  taskmanager-"
                                        + restartIfMissing
                                        + " did not re-register after the partition: restarting it");
                        kfp.cluster().stopTaskManager(restartIfMissing);
                        kfp.cluster().startTaskManager(restartIfMissing);
                        restartIfMissing = 0;
                        deadline = System.nanoTime() + REGISTRATION_TIMEOUT.toNanos();
                    } else {
                        throw new IllegalStateException(
                                rest.taskManagers()
                                        + " of "
                                        + expected
                                        + " TaskManagers registered after "
                                        + REGISTRATION_TIMEOUT.toSeconds()
                                        + " s");
                    }
                }
                Processes.sleep(Duration.ofMillis(500));
            }
        }
        clock.sayLongWait(start, "every TaskManager to register");
    }

    void awaitJobManagers() {
        long start = System.nanoTime();
        for (Topology.Host host : topology.with(Topology.Role.JOBMANAGER)) {
            kfp.cluster().awaitJobManager(host, REGISTRATION_TIMEOUT);
        }
        clock.sayLongWait(start, "every JobManager to answer");
    }
}
