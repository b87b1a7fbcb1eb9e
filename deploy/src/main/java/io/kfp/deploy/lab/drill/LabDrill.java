package io.kfp.deploy.lab.drill;

import io.kfp.common.config.ConfigValidator;
import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.cluster.FlinkTls;
import io.kfp.deploy.cluster.S3Store;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.kafka.KafkaBroker;
import io.kfp.deploy.kafka.Topics;
import io.kfp.deploy.lab.Lab;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The relay, exactly once, through the faults of a production-shaped cluster: a producer writes
 * sequence-numbered keyed records at a steady rate, the relay copies them, an observer reads the
 * output with read_committed; one fault after the other is injected and the time until committed
 * output flows again on every partition is measured. At the end every sequence number must be in
 * the output exactly once, in order per key, with no transaction of the relay left open, every
 * partition's last stable offset at its high watermark and no job FAILED.
 *
 * <p>It runs on the topology's client host ({@code kfp lab drill}, {@code kfp lab soak}): the
 * faults are kfp's own commands (kill -9 by PID, a host's link down), the clients are Kafka's.
 */
public final class LabDrill {

    public enum Fault {
        KILL_LEADER_BROKER("kill -9 of the broker leading most output partitions"),
        KILL_COORDINATOR("kill -9 of the transaction coordinator of the relay's transactional ids"),
        ROLLING_RESTART("graceful restart of every broker, one at a time"),
        KILL_LEADER_JOBMANAGER("kill -9 of the leading JobManager (the standby takes over)"),
        KILL_TASKMANAGER("kill -9 of a TaskManager running the relay"),
        PARTITION_TASKMANAGER(
                "20 s network partition of the host of a TaskManager running the relay", true),
        PARTITION_LEADER_BROKER(
                "20 s network partition of the host of the broker leading most partitions", true),
        S3_OUTAGE("the S3 store stopped for 30 s, then started again", true),
        RESCALE_UP("stop with a savepoint, resume at parallelism 3"),
        RESCALE_DOWN("stop with a savepoint, resume at parallelism 1");

        final String description;

        /**
         * Whether the fault lasts (the drill waits it out before healing it), so output may flow
         * again during it.
         */
        final boolean outage;

        Fault(String description) {
            this(description, false);
        }

        Fault(String description, boolean outage) {
            this.description = description;
            this.outage = outage;
        }

        public String label() {
            return ConfigValidator.text(this);
        }
    }

    /**
     * The whole matrix. Each fault waits only for what it needs of the lab ({@link #prepare}), and
     * the order lets what one fault killed come back while the next one, which does not need it,
     * runs: the killed leader broker catches up (20-40 s here) during the S3 outage, the
     * replacement of the killed TaskManager registers (25-60 s) during the broker partition and the
     * rescales. Not beside a fault that restarts the relay: a broker still starting slowed the
     * relay's restart after a TaskManager partition from 18.8 s to 33.1 s (its producers
     * bootstrapped against it). The TaskManager kill, whose target is the tightest, finds the whole
     * lab in sync.
     */
    public static final List<Fault> MATRIX =
            List.of(
                    Fault.KILL_LEADER_BROKER,
                    Fault.S3_OUTAGE,
                    Fault.KILL_COORDINATOR,
                    Fault.ROLLING_RESTART,
                    Fault.PARTITION_TASKMANAGER,
                    Fault.KILL_LEADER_JOBMANAGER,
                    Fault.KILL_TASKMANAGER,
                    Fault.PARTITION_LEADER_BROKER,
                    Fault.RESCALE_UP,
                    Fault.RESCALE_DOWN);

    static final String JOB_NAME = "drill-relay";

    /** Topics of this run alone: an earlier run's records must not count as this one's. */
    private final String run = "drill-" + System.currentTimeMillis() / 1000;

    private final String input = run + "-in";
    private final String output = run + "-out";
    static final int KEYS = 50;
    static final Duration PARTITION = Duration.ofSeconds(20);
    static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(3);

    /**
     * How long a TaskManager may take to register. A fresh one starts in ~5 s on an idle lab, but
     * took 25-53 s while the drill loaded both cores (JVM start, the S3 file system, the RPC
     * system), and more than 60 s with the cluster on TLS.
     */
    static final Duration REGISTRATION_TIMEOUT = Duration.ofMinutes(2);

    /**
     * One fault's recovery: {@code seconds} from the injection until committed output flows on
     * every partition; for a lasting fault (partition, store outage) also {@code afterEndSeconds},
     * from when it ended (link up, store serving again) - 0 when output flowed again before that -,
     * else NaN.
     */
    public record Recovery(Fault fault, double atSeconds, double seconds, double afterEndSeconds) {
        String afterEnd() {
            return Double.isNaN(afterEndSeconds)
                    ? "-"
                    : String.format(Locale.ROOT, "%.1f", afterEndSeconds);
        }
    }

    /**
     * What the observer saw while the faults happened, and what kfp verify finds in the topics
     * afterwards ({@code copy}).
     */
    public record Verdict(
            long produced,
            long distinct,
            long duplicates,
            long missing,
            long misordered,
            long strangers,
            long ongoingTransactions,
            long lsoBehindHighWatermark,
            long failedJobs,
            io.kfp.ops.verify.CopyReport copy,
            List<Recovery> recoveries) {
        public boolean clean() {
            return distinct == produced
                    && duplicates == 0
                    && missing == 0
                    && misordered == 0
                    && strangers == 0
                    && ongoingTransactions == 0
                    && lsoBehindHighWatermark == 0
                    && failedJobs == 0
                    && copy != null
                    && copy.clean()
                    && copy.matched() == produced;
        }
    }

    private final KfpContext kfp;
    private final KfpSettings settings;
    private final Topology topology;
    private final PrintStream out;
    private final long started = System.nanoTime();
    private final Observer observer = new Observer();
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong sendErrors = new AtomicLong();
    private int parallelism = 2;

    /**
     * The TaskManager (tm-N) whose host was partitioned and healed last, until it is seen
     * registered again; 0: none.
     */
    private int healedTaskManager;

    private final Set<Topology.Host> partitioned = ConcurrentHashMap.newKeySet();

    /** Relay options after the drill's own, e.g. a setting to try under the faults. */
    private final List<String> relayOptions;

    public LabDrill(KfpContext kfp, List<String> relayOptions) {
        this.kfp = kfp;
        this.relayOptions = List.copyOf(relayOptions);
        this.settings = kfp.settings();
        this.topology = settings.topology();
        this.out = kfp.out();
    }

    /**
     * Runs {@code faults} while at least {@code records} are produced at {@code rate} per second.
     */
    public Verdict run(List<Fault> faults, long records, int rate) throws Exception {
        return run(faults, records, rate, Duration.ZERO);
    }

    /**
     * Like {@link #run(List, long, int)}, the relay running {@code warmUp} before the first fault:
     * on a lab just started, every JVM spends its first minutes compiling (each broker's C2
     * compiler thread used 42 s of CPU in the first 6 minutes of a soak, on two cores shared by ten
     * JVMs), and a fault struck then measures that as much as the recovery.
     */
    public Verdict run(List<Fault> faults, long records, int rate, Duration warmUp)
            throws Exception {
        kfp.requireLabNetwork();
        say(
                "drill: "
                        + faults.size()
                        + " faults, at least "
                        + records
                        + " records at "
                        + rate
                        + "/s, relay "
                        + JOB_NAME
                        + (relayOptions.isEmpty() ? "" : " " + String.join(" ", relayOptions)));
        cancelLeftovers();
        for (Topology.Host host : topology.hosts()) {
            lab().heal(host); // a partition an interrupted run left behind
        }
        // Killed half way (Ctrl-C, a test's timeout): no host stays cut off.
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () ->
                                        partitioned.forEach(
                                                h -> {
                                                    try {
                                                        lab().heal(h);
                                                    } catch (RuntimeException e) {
                                                        System.err.println(
                                                                "could not heal "
                                                                        + h.name()
                                                                        + ": "
                                                                        + e.getMessage());
                                                    }
                                                })));
        new Topics(settings, out)
                .create(
                        new java.util.TreeSet<>(List.of(input, output)),
                        Topics.PARTITIONS,
                        (short) 3);
        submit(null);
        AtomicBoolean faultsDone = new AtomicBoolean(false);
        Thread producer = new Thread(() -> produce(records, rate, faultsDone), "drill-producer");
        Thread observing = new Thread(observer, "drill-observer");
        observing.setDaemon(true);
        observing.start();
        producer.start();
        List<Recovery> recoveries = new ArrayList<>();
        try {
            awaitCondition(
                    "the relay's first committed output on every partition",
                    Duration.ofMinutes(3),
                    () -> observer.flowingSince(0));
            if (!warmUp.isZero()) {
                say(
                        "drill: warming up, the relay running "
                                + TimeUtils.formatWithHighestUnit(warmUp)
                                + " before the first fault");
                Processes.sleep(warmUp);
            }
            // The matrix's order lets a restarted process come back beside a fault that does not
            // need
            // it; in any other order (the soak's random draw, a list) nothing says so, and a fault
            // struck while the last one's replacement still starts measures both: the whole lab
            // first.
            boolean planned = faults.equals(MATRIX);
            for (Fault fault : faults) {
                if (planned) {
                    prepare(fault);
                } else {
                    awaitFullStrength();
                    awaitOutputFlowing();
                }
                recoveries.add(inject(fault));
            }
            awaitFullStrength();
        } finally {
            faultsDone.set(true);
            producer.join(TimeUnit.MINUTES.toMillis(30));
        }
        say(
                "drill: produced "
                        + produced.get()
                        + " records ("
                        + sendErrors.get()
                        + " send errors); waiting for the rest to be relayed");
        awaitCondition(
                "every produced record in the output",
                Duration.ofMinutes(5),
                () -> observer.distinct() >= produced.get());
        JobID job = relayJob();
        String savepoint;
        try (FlinkRest rest = kfp.rest()) {
            savepoint = rest.stopWithSavepoint(job, null);
        }
        say("drill: relay stopped with savepoint " + savepoint);
        Processes.sleep(Duration.ofSeconds(2)); // the observer reads the last commit
        observer.stop();
        Verdict verdict = verdict(recoveries);
        report(verdict);
        return verdict;
    }

    // --- faults --------------------------------------------------------------------------------

    private Recovery inject(Fault fault) throws Exception {
        say("fault: " + fault.label() + " - " + fault.description);
        // Aim first (REST and Admin calls take time), then start the clock and strike.
        Runnable strike;
        Runnable afterRecovery = () -> {};
        switch (fault) {
            case KILL_LEADER_BROKER, KILL_COORDINATOR -> {
                Topology.Host broker =
                        brokerHost(
                                fault == Fault.KILL_LEADER_BROKER
                                        ? leaderOfMostPartitions()
                                        : transactionCoordinator());
                strike = () -> kafka().kill(broker);
                afterRecovery = () -> startBroker(broker);
            }
            case ROLLING_RESTART -> {
                return rollingRestart();
            }
            case KILL_LEADER_JOBMANAGER -> {
                Topology.Host leader = leadingJobManager();
                strike = () -> cluster().killJobManager(leader);
                afterRecovery = () -> cluster().startJobManager(leader);
            }
            case KILL_TASKMANAGER -> {
                int tm = busyTaskManager();
                strike = () -> cluster().killTaskManager(tm);
                afterRecovery = () -> cluster().startTaskManager(tm);
            }
            case PARTITION_TASKMANAGER -> {
                // The one running the relay now: after a kill that is another host than the one
                // killed.
                int busy = busyTaskManager();
                Topology.Host host = cluster().taskManagerHost(busy);
                strike = () -> partition(host);
                afterRecovery = () -> healedTaskManager = busy;
            }
            case PARTITION_LEADER_BROKER -> {
                Topology.Host host = brokerHost(leaderOfMostPartitions());
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
                JobID job = relayJob();
                strike =
                        () -> {
                            String savepoint;
                            try (FlinkRest rest = kfp.rest()) {
                                savepoint = rest.stopWithSavepoint(job, null);
                            }
                            say(
                                    "  stopped with savepoint "
                                            + savepoint
                                            + ", resuming at parallelism "
                                            + to);
                            parallelism = to;
                            submit(savepoint);
                        };
            }
            default -> throw new IllegalStateException(fault.name());
        }
        long t0 = System.currentTimeMillis();
        double at = seconds();
        if (fault.outage) {
            // A partition or an outage blocks strike.run() for its whole length: output that flows
            // again meanwhile counts from when it did. A rescale's stopping relay commits records
            // produced after t0 itself, so there only the resumed relay's output counts.
            observer.flowingSince(t0);
        }
        strike.run();
        long ended = System.currentTimeMillis();
        awaitCondition(
                "committed output on every partition after " + fault.label(),
                RECOVERY_TIMEOUT,
                () -> observer.flowingSince(t0));
        long flowing = observer.flowingAt(t0);
        double recovery = (flowing - t0) / 1000.0;
        double afterEnd = fault.outage ? Math.max(0, flowing - ended) / 1000.0 : Double.NaN;
        say(
                String.format(
                        Locale.ROOT,
                        "  committed output flows again on every partition %.1f s after the injection%s",
                        recovery,
                        fault.outage
                                ? String.format(
                                        Locale.ROOT, ", %.1f s after the fault ended", afterEnd)
                                : ""));
        afterRecovery
                .run(); // starts what the fault killed; the next fault that needs it waits for it
        return new Recovery(fault, at, recovery, afterEnd);
    }

    private void partition(Topology.Host host) {
        partitioned.add(host);
        try {
            lab().partition(host);
            Processes.sleep(PARTITION);
        } finally {
            lab().heal(host);
            partitioned.remove(host);
        }
    }

    /**
     * One broker after the other, each stopped gracefully and started again; the longest stall is
     * its recovery.
     */
    private Recovery rollingRestart() {
        double at = seconds();
        double worst = 0;
        for (Topology.Host broker : topology.with(Topology.Role.KAFKA)) {
            long t0 = System.currentTimeMillis();
            observer.flowingSince(t0);
            kafka().restart(broker);
            awaitCondition(
                    "committed output on every partition after restarting " + broker.name(),
                    RECOVERY_TIMEOUT,
                    () -> observer.flowingSince(t0));
            double stall = (observer.flowingAt(t0) - t0) / 1000.0;
            say(
                    String.format(
                            Locale.ROOT,
                            "  %s restarted: committed output on every partition %.1f s after its stop began",
                            broker.name(),
                            stall));
            worst = Math.max(worst, stall);
            awaitFullIsr();
        }
        return new Recovery(Fault.ROLLING_RESTART, at, worst, Double.NaN);
    }

    /**
     * Before a fault, what it needs of the lab to test what it says, then output flowing: a broker
     * fault every replica in sync (else two brokers short of three would stop the writes with
     * min.insync.replicas 2), a TaskManager partition every TaskManager registered, a JobManager
     * kill a standby answering; a TaskManager kill the whole lab, so its recovery is measured on a
     * quiet lab. The S3 outage and the rescales need nothing of the restarted processes.
     */
    private void prepare(Fault fault) {
        switch (fault) {
            case KILL_LEADER_BROKER, KILL_COORDINATOR, ROLLING_RESTART, PARTITION_LEADER_BROKER ->
                    awaitFullIsr();
            case PARTITION_TASKMANAGER -> awaitTaskManagers();
            case KILL_LEADER_JOBMANAGER -> awaitJobManagers();
            case KILL_TASKMANAGER -> awaitFullStrength();
            default -> {}
        }
        awaitOutputFlowing();
    }

    private void awaitOutputFlowing() {
        long now = System.currentTimeMillis();
        awaitCondition(
                "output flowing before the next fault",
                RECOVERY_TIMEOUT,
                () -> observer.flowingSince(now));
    }

    /** Every replica in sync, every TaskManager registered, every JobManager answering. */
    private void awaitFullStrength() {
        awaitFullIsr();
        awaitTaskManagers();
        awaitJobManagers();
    }

    private void startBroker(Topology.Host broker) {
        int nodeId = topology.with(Topology.Role.KAFKA).indexOf(broker) + 1;
        kafka().startNode(broker, nodeId, kafka().clusterId());
    }

    private void awaitJobManagers() {
        long start = System.nanoTime();
        for (Topology.Host host : topology.with(Topology.Role.JOBMANAGER)) {
            cluster().awaitJobManager(host, REGISTRATION_TIMEOUT);
        }
        sayLongWait(start, "every JobManager to answer");
    }

    /**
     * Waits until every TaskManager is registered; the one last partitioned, if it does not come
     * back by itself, is restarted.
     */
    private void awaitTaskManagers() {
        int restartIfMissing = healedTaskManager;
        healedTaskManager = 0;
        int expected = topology.with(Topology.Role.TASKMANAGER).size();
        long start = System.nanoTime();
        long deadline = start + REGISTRATION_TIMEOUT.toNanos();
        try (FlinkRest rest = kfp.rest()) {
            while (rest.taskManagers() < expected) {
                if (System.nanoTime() > deadline) {
                    if (restartIfMissing > 0) {
                        say(
                                "  taskmanager-"
                                        + restartIfMissing
                                        + " did not re-register after the partition: restarting it");
                        cluster().stopTaskManager(restartIfMissing);
                        cluster().startTaskManager(restartIfMissing);
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
        sayLongWait(start, "every TaskManager to register");
    }

    /**
     * One admin client for the whole wait: a new one per poll was a connection storm on the brokers
     * being waited for.
     */
    private void awaitFullIsr() {
        try (Admin admin = admin()) {
            awaitCondition(
                    "every replica of the drill's topics and of the transaction log in sync",
                    Duration.ofMinutes(3),
                    () -> {
                        try {
                            boolean inSync =
                                    admin
                                            .describeTopics(
                                                    List.of(
                                                            input,
                                                            output,
                                                            "__transaction_state",
                                                            "__consumer_offsets"))
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

    // --- what the faults aim at -----------------------------------------------------------------

    private int leaderOfMostPartitions() throws Exception {
        try (Admin admin = admin()) {
            TopicDescription d =
                    admin.describeTopics(List.of(output))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .get(output);
            Map<Integer, Long> led =
                    d.partitions().stream()
                            .filter(p -> p.leader() != null)
                            .collect(
                                    Collectors.groupingBy(
                                            p -> p.leader().id(),
                                            TreeMap::new,
                                            Collectors.counting()));
            return led.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        }
    }

    private int transactionCoordinator() throws Exception {
        try (Admin admin = admin()) {
            List<String> ids =
                    admin
                            .listTransactions(new ListTransactionsOptions())
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .stream()
                            .map(TransactionListing::transactionalId)
                            .filter(id -> id.startsWith(prefix()))
                            .toList();
            if (ids.isEmpty()) {
                throw new IllegalStateException(
                        "no transactional id of prefix " + prefix() + " yet");
            }
            Map<Integer, Long> coordinators =
                    admin
                            .describeTransactions(ids)
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .values()
                            .stream()
                            .collect(
                                    Collectors.groupingBy(
                                            t -> t.coordinatorId(),
                                            TreeMap::new,
                                            Collectors.counting()));
            return coordinators.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();
        }
    }

    private Topology.Host brokerHost(int nodeId) {
        Topology.Host host = topology.with(Topology.Role.KAFKA).get(nodeId - 1);
        say("  broker " + nodeId + " is on " + host.name());
        return host;
    }

    private Topology.Host leadingJobManager() {
        String leader;
        try (FlinkRest rest = kfp.rest()) {
            leader = rest.leader();
        }
        for (Topology.Host host : topology.with(Topology.Role.JOBMANAGER)) {
            if (leader.contains("//" + host.address() + ":")) {
                say("  the leading JobManager is on " + host.name() + " (" + leader + ")");
                return host;
            }
        }
        throw new IllegalStateException("no JobManager host has the leader's address " + leader);
    }

    /** The number N of a TaskManager (tm-N) running the relay's first subtask. */
    private int busyTaskManager() throws Exception {
        String rest;
        try (FlinkRest client = kfp.rest()) {
            rest = client.leader();
        }
        String job = relayJob().toHexString();
        ObjectMapper json = new ObjectMapper();
        HttpClient http = FlinkTls.httpClient(cluster().writeConf());
        JsonNode details = json.readTree(get(http, rest + "/jobs/" + job));
        String vertex = details.path("vertices").path(0).path("id").asText();
        JsonNode tms =
                json.readTree(
                                get(
                                        http,
                                        rest
                                                + "/jobs/"
                                                + job
                                                + "/vertices/"
                                                + vertex
                                                + "/taskmanagers"))
                        .path("taskmanagers");
        String id = tms.path(0).path("taskmanager-id").asText();
        if (!id.matches("tm-\\d+")) {
            throw new IllegalStateException("no TaskManager runs the relay: " + tms);
        }
        say("  " + id + " runs the relay");
        return Integer.parseInt(id.substring(3));
    }

    private static String get(HttpClient http, String url) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    // --- the relay, the producer, the observer --------------------------------------------------

    private void submit(String restoreFrom) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--job.name",
                                JOB_NAME,
                                "--source.topics",
                                input,
                                "--sink.topic",
                                output,
                                "--checkpoint.interval",
                                "1 s",
                                "--job.parallelism",
                                String.valueOf(parallelism),
                                // The drill's faults come a minute apart, a cluster's are days
                                // apart: each one's restart
                                // is measured as the first of its incident, not as the next of a
                                // crash loop.
                                "--restart.reset-after",
                                "30 s",
                                // A prefix of its own per run: the sink's recovery probes every
                                // transactional id an
                                // earlier run of the same prefix used on this Kafka (measured: 20 s
                                // per restart
                                // after a day of drills, instead of 6.6 s), which is no fault of
                                // this run's.
                                "--job.instance-id",
                                run,
                                "--checkpoint.dir",
                                cluster().sharedStorage() + "/checkpoints/" + JOB_NAME,
                                "--checkpoint.savepoint-dir",
                                cluster().sharedStorage() + "/savepoints/" + JOB_NAME));
        args.addAll(relayOptions);
        if (restoreFrom == null && settings.kafkaSecurity().enabled()) {
            // On the secure brokers the relay logs in as User:relay: it gets exactly what this
            // run's topics and prefix need.
            kfp.submitter().grantAcls(DeployedJob.of("relay"), args, "User:relay");
        }
        if (restoreFrom != null) {
            args.addAll(List.of("--checkpoint.restore-from", restoreFrom));
        }
        kfp.submitter().submit(DeployedJob.of("relay"), args);
    }

    /**
     * A relay an interrupted drill left running would read and write the old topics beside ours.
     */
    private void cancelLeftovers() {
        try (FlinkRest rest = kfp.rest()) {
            for (JobStatusMessage job : rest.jobs()) {
                if (job.getJobName().equals(JOB_NAME)
                        && !job.getJobState().isGloballyTerminalState()) {
                    say(
                            "drill: cancelling "
                                    + job.getJobId()
                                    + ", a "
                                    + JOB_NAME
                                    + " left by an earlier run");
                    rest.cancel(job.getJobId());
                }
            }
        }
    }

    private JobID relayJob() {
        try (FlinkRest rest = kfp.rest()) {
            return rest.runningJob(JOB_NAME);
        }
    }

    /** This run's transactional ids: kfp.JOB.INSTANCE-subtask-checkpoint. */
    private String prefix() {
        return "kfp." + JOB_NAME + "." + run + "-";
    }

    private void produce(long records, int rate, AtomicBoolean faultsDone) {
        Properties props = settings.kafkaClient();
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        // Idempotent: a send retried across a broker failure is written once, in order.
        props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.setProperty(
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                String.valueOf(Duration.ofMinutes(10).toMillis()));
        // 50 ms batches: at 1,000 records/s Kafka's 5 ms made ~200 produce requests a second, each
        // replicated twice - most of the three brokers' CPU on the shared cores.
        props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "50");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            long start = System.nanoTime();
            long i = 0;
            while (i < records || !faultsDone.get()) {
                long due = start + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                producer.send(
                        new ProducerRecord<>(
                                input,
                                ("key-" + (i % KEYS)).getBytes(StandardCharsets.UTF_8),
                                ("seq-" + i).getBytes(StandardCharsets.UTF_8)),
                        (m, e) -> {
                            if (e != null) {
                                sendErrors.incrementAndGet();
                            }
                        });
                produced.set(++i);
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads the output with read_committed: what each sequence number is, and when each partition
     * last moved.
     */
    private final class Observer implements Runnable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final BitSet seen = new BitSet();
        private long duplicates;
        private long misordered;
        private long strangers;
        private final long[] lastOfKey = new long[KEYS];

        /**
         * Per output partition: the arrival times of the first record with a timestamp after each
         * injection.
         */
        private final Map<Integer, Long> maxTimestamp = new ConcurrentHashMap<>();

        private final Map<Long, Map<Integer, Long>> flowing = new ConcurrentHashMap<>();

        @Override
        public void run() {
            java.util.Arrays.fill(lastOfKey, -1);
            Properties props = settings.kafkaClient();
            props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            // A fetch answered once 16 KB are there or after 100 ms, not for every record: the
            // times it
            // reports are at most 0.1 s late.
            props.setProperty(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "16384");
            props.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
            try (KafkaConsumer<byte[], byte[]> consumer =
                    new KafkaConsumer<>(
                            props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                List<TopicPartition> partitions = new ArrayList<>();
                consumer.partitionsFor(output, Duration.ofMinutes(1))
                        .forEach(p -> partitions.add(new TopicPartition(output, p.partition())));
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (running.get()) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        record(r);
                    }
                }
            }
        }

        private synchronized void record(ConsumerRecord<byte[], byte[]> r) {
            long now = System.currentTimeMillis();
            maxTimestamp.merge(r.partition(), r.timestamp(), Math::max);
            for (Map.Entry<Long, Map<Integer, Long>> since : flowing.entrySet()) {
                if (r.timestamp() > since.getKey()) {
                    since.getValue().putIfAbsent(r.partition(), now);
                }
            }
            String value = new String(r.value(), StandardCharsets.UTF_8);
            String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
            if (!value.startsWith("seq-") || !key.startsWith("key-")) {
                strangers++;
                return;
            }
            long seq = Long.parseLong(value.substring(4));
            int k = Integer.parseInt(key.substring(4));
            if (seen.get((int) seq)) {
                duplicates++;
            }
            seen.set((int) seq);
            if (seq < lastOfKey[k]) {
                misordered++;
            }
            lastOfKey[k] = Math.max(lastOfKey[k], seq);
        }

        /**
         * Whether every output partition has a committed record produced after {@code since} (epoch
         * ms).
         */
        boolean flowingSince(long since) {
            Map<Integer, Long> arrivals =
                    flowing.computeIfAbsent(
                            since,
                            s -> {
                                Map<Integer, Long> already = new ConcurrentHashMap<>();
                                maxTimestamp.forEach(
                                        (p, ts) -> {
                                            if (ts > s) {
                                                already.put(p, System.currentTimeMillis());
                                            }
                                        });
                                return already;
                            });
            return arrivals.size() >= Topics.PARTITIONS;
        }

        /** When the last partition started flowing again after {@code since}. */
        long flowingAt(long since) {
            return flowing.get(since).values().stream()
                    .mapToLong(Long::longValue)
                    .max()
                    .orElseThrow();
        }

        synchronized long distinct() {
            return seen.cardinality();
        }

        void stop() {
            running.set(false);
        }
    }

    // --- the verdict ----------------------------------------------------------------------------

    private Verdict verdict(List<Recovery> recoveries) throws Exception {
        long ongoing;
        long lsoLag = 0;
        try (Admin admin = admin()) {
            Collection<TransactionListing> open =
                    admin.listTransactions(
                                    new ListTransactionsOptions()
                                            .filterStates(
                                                    List.of(
                                                            TransactionState.ONGOING,
                                                            TransactionState.PREPARE_COMMIT,
                                                            TransactionState.PREPARE_ABORT)))
                            .all()
                            .get(30, TimeUnit.SECONDS);
            ongoing = open.stream().filter(t -> t.transactionalId().startsWith(prefix())).count();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < Topics.PARTITIONS; p++) {
                latest.put(new TopicPartition(output, p), OffsetSpec.latest());
            }
            var stable =
                    admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                            .all()
                            .get(30, TimeUnit.SECONDS);
            var high =
                    admin.listOffsets(
                                    latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                            .all()
                            .get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : latest.keySet()) {
                lsoLag += high.get(tp).offset() - stable.get(tp).offset();
            }
        }
        long failed;
        try (FlinkRest rest = kfp.rest()) {
            failed =
                    rest.jobs().stream()
                            .filter(j -> j.getJobName().equals(JOB_NAME))
                            .map(JobStatusMessage::getJobState)
                            .filter(s -> s == JobStatus.FAILED)
                            .count();
        }
        long total = produced.get();
        long missing;
        long distinct;
        synchronized (observer) {
            distinct = observer.seen.cardinality();
            missing = total - observer.seen.get(0, (int) total).cardinality();
        }
        // The observer checks sequence numbers as they come; kfp verify then checks every byte of
        // every record.
        io.kfp.ops.verify.CopyReport copy;
        try {
            copy =
                    new io.kfp.ops.verify.RelayVerifier(
                                    settings.kafkaClient(),
                                    settings.run().resolve("verify"),
                                    io.kfp.ops.verify.RelayVerifier.DEFAULT_BUCKET_ENTRIES,
                                    3,
                                    null)
                            .verify(
                                    input,
                                    io.kfp.ops.verify.RelayVerifier.Range.whole(),
                                    output,
                                    io.kfp.ops.verify.RelayVerifier.Range.whole());
        } catch (RuntimeException e) {
            // What the observer saw is still reported; the drill is not clean without the
            // byte-for-byte check.
            say("kfp verify could not check the topics: " + e.getMessage());
            copy = null;
        }
        return new Verdict(
                total,
                distinct,
                observer.duplicates,
                missing,
                observer.misordered,
                observer.strangers,
                ongoing,
                lsoLag,
                failed,
                copy,
                recoveries);
    }

    private void report(Verdict v) {
        out.println();
        out.println(
                "| fault | injected at (s) | committed output flows again after (s) | after the fault ended (s) |");
        out.println("|---|---|---|---|");
        for (Recovery r : v.recoveries()) {
            out.printf(
                    Locale.ROOT,
                    "| %s | %.0f | %.1f | %s |%n",
                    r.fault().label(),
                    r.atSeconds(),
                    r.seconds(),
                    r.afterEnd());
        }
        out.println();
        out.printf(
                Locale.ROOT,
                "verdict: %s - produced %d, in the output %d distinct, %d duplicated, %d missing, %d out of order"
                        + " per key, %d strangers; %d transactions of %s* left open; %d records between last stable offset and high"
                        + " watermark; %d FAILED jobs%n",
                v.clean() ? "EXACTLY ONCE" : "NOT CLEAN",
                v.produced(),
                v.distinct(),
                v.duplicates(),
                v.missing(),
                v.misordered(),
                v.strangers(),
                v.ongoingTransactions(),
                prefix(),
                v.lsoBehindHighWatermark(),
                v.failedJobs());
        if (v.copy() != null) {
            out.println("kfp verify --from " + input + " --to " + output + ":");
            v.copy().print(out);
        }
        // One line for programs (the fault-matrix test): key=value pairs.
        out.println(
                "drill-result produced="
                        + v.produced()
                        + " distinct="
                        + v.distinct()
                        + " duplicates="
                        + v.duplicates()
                        + " missing="
                        + v.missing()
                        + " misordered="
                        + v.misordered()
                        + " strangers="
                        + v.strangers()
                        + " ongoing="
                        + v.ongoingTransactions()
                        + " lsoLag="
                        + v.lsoBehindHighWatermark()
                        + " failedJobs="
                        + v.failedJobs()
                        + " verified="
                        + (v.copy() == null ? -1 : v.copy().matched())
                        + " verifyClean="
                        + (v.copy() != null && v.copy().clean())
                        + " recoveries="
                        + v.recoveries().stream()
                                .map(
                                        r ->
                                                r.fault().label()
                                                        + ":"
                                                        + String.format(
                                                                Locale.ROOT, "%.1f", r.seconds()))
                                .collect(Collectors.joining(",")));
        out.flush();
    }

    /** {@code count} faults drawn at random from the matrix (the soak). */
    public static List<Fault> random(int count, long seed) {
        Random random = new Random(seed);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            faults.add(MATRIX.get(random.nextInt(MATRIX.size())));
        }
        return faults;
    }

    public static List<Fault> parse(String list) {
        if (list.equals("matrix")) {
            return MATRIX;
        }
        List<Fault> faults = new ArrayList<>();
        for (String name : list.split(",")) {
            try {
                faults.add(Fault.valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw new KfpException(
                        "unknown fault '"
                                + name
                                + "': use matrix or some of "
                                + java.util.Arrays.stream(Fault.values())
                                        .map(Fault::label)
                                        .collect(Collectors.joining(", ")));
            }
        }
        return faults;
    }

    // --- helpers
    // ----------------------------------------------------------------------------------

    private Admin admin() {
        return Topics.admin(settings);
    }

    private KafkaBroker kafka() {
        return kfp.kafka();
    }

    private FlinkCluster cluster() {
        return kfp.cluster();
    }

    private Lab lab() {
        return kfp.lab();
    }

    private double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    private void say(String line) {
        out.printf(Locale.ROOT, "[%6.1f s] %s%n", seconds(), line);
        out.flush();
    }

    /** Waits for {@code condition}. */
    private void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new KfpException(
                        "drill: timed out after " + timeout.toSeconds() + " s waiting for " + what,
                        KfpException.FAILED);
            }
            Processes.sleep(Duration.ofMillis(100));
        }
        sayLongWait(start, what);
    }

    /** A wait of seconds is said, so a slow drill shows where its time went. */
    private void sayLongWait(long startNanos, String what) {
        double waited = (System.nanoTime() - startNanos) / 1e9;
        if (waited >= 2) {
            say(String.format(Locale.ROOT, "  waited %.1f s for %s", waited, what));
        }
    }

    public static Set<String> labels() {
        return MATRIX.stream()
                .map(Fault::label)
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }
}
