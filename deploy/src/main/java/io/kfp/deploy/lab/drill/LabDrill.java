package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import io.kfp.deploy.kafka.Topics;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.RelayVerifier;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

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
    private final KfpContext kfp;
    private final KfpSettings settings;
    private final Topology topology;
    private final PrintStream out;
    private final Path reportFile;
    private final DrillClock clock;
    private final DrillRun run;
    private final DrillRelay relay;
    private final OutputObserver observer;
    private final FullStrength strength;
    private final FaultInjector injector;

    /**
     * @param relayOptions relay options after the drill's own, e.g. a setting to try under the
     *     faults
     * @param reportFile where the Markdown report goes when the drill ends
     */
    public LabDrill(KfpContext kfp, List<String> relayOptions, Path reportFile) {
        this.kfp = kfp;
        this.settings = kfp.settings();
        this.topology = settings.topology();
        this.out = kfp.out();
        this.reportFile = reportFile;
        this.clock = new DrillClock(out);
        this.run = DrillRun.startingNow();
        this.relay = new DrillRelay(kfp, run, relayOptions, clock);
        this.observer = new OutputObserver(settings.kafkaClient(), run.output());
        this.strength = new FullStrength(kfp, run, clock);
        this.injector =
                new FaultInjector(
                        kfp,
                        relay,
                        observer,
                        new FaultTargets(kfp, run, relay, clock),
                        strength,
                        clock);
    }

    /**
     * Runs {@code faults} while at least {@code records} are produced at {@code rate} per second.
     */
    public DrillResult run(List<Fault> faults, long records, int rate) throws Exception {
        return run(faults, records, rate, Duration.ZERO);
    }

    /**
     * Like {@link #run(List, long, int)}, the relay running {@code warmUp} before the first fault:
     * on a lab just started, every JVM spends its first minutes compiling (each broker's C2
     * compiler thread used 42 s of CPU in the first 6 minutes of a soak, on two cores shared by ten
     * JVMs), and a fault struck then measures that as much as the recovery.
     */
    public DrillResult run(List<Fault> faults, long records, int rate, Duration warmUp)
            throws Exception {
        kfp.requireLabNetwork();
        clock.say(
                "drill: "
                        + faults.size()
                        + " faults, at least "
                        + records
                        + " records at "
                        + rate
                        + "/s, relay "
                        + DrillRelay.JOB_NAME
                        + (relay.options().isEmpty()
                                ? ""
                                : " " + String.join(" ", relay.options())));
        relay.cancelLeftovers();
        for (Topology.Host host : topology.hosts()) {
            kfp.lab().heal(host); // a partition an interrupted run left behind
        }
        injector.healOnShutdown();
        new Topics(settings, out)
                .create(
                        new TreeSet<>(List.of(run.input(), run.output())),
                        Topics.PARTITIONS,
                        (short) 3);
        relay.start();
        SequenceProducer producer =
                new SequenceProducer(settings.kafkaClient(), run.input(), records, rate);
        Thread producing = new Thread(producer, "drill-producer");
        Thread observing = new Thread(observer, "drill-observer");
        observing.setDaemon(true);
        observing.start();
        producing.start();
        List<Recovery> recoveries = new ArrayList<>();
        try {
            clock.await(
                    "the relay's first committed output on every partition",
                    Duration.ofMinutes(3),
                    () -> observer.flowingSince(0));
            if (!warmUp.isZero()) {
                clock.say(
                        "drill: warming up, the relay running "
                                + TimeUtils.formatWithHighestUnit(warmUp)
                                + " before the first fault");
                Processes.sleep(warmUp);
            }
            // The matrix's order lets a restarted process come back beside a fault that does not
            // need it; in any other order (the soak's random draw, a list) nothing says so, and a
            // fault struck while the last one's replacement still starts measures both: the whole
            // lab first.
            boolean planned = faults.equals(Fault.MATRIX);
            for (Fault fault : faults) {
                if (planned) {
                    prepare(fault);
                } else {
                    strength.await();
                    awaitOutputFlowing();
                }
                recoveries.add(injector.inject(fault));
            }
            strength.await();
        } finally {
            producer.faultsDone();
            producing.join(TimeUnit.MINUTES.toMillis(30));
        }
        clock.say(
                "drill: produced "
                        + producer.produced()
                        + " records ("
                        + producer.sendErrors()
                        + " send errors); waiting for the rest to be relayed");
        clock.await(
                "every produced record in the output",
                Duration.ofMinutes(5),
                () -> observer.distinct() >= producer.produced());
        String savepoint = relay.stopWithSavepoint(relay.runningJob());
        clock.say("drill: relay stopped with savepoint " + savepoint);
        Processes.sleep(Duration.ofSeconds(2)); // the observer reads the last commit
        observer.stop();
        DrillResult result = result(producer.produced(), recoveries);
        DrillReport report =
                new DrillReport(
                        run,
                        topology.name(),
                        settings.version(),
                        relay.options(),
                        faults,
                        records,
                        rate);
        report.print(result, out);
        out.println("report: " + report.write(result, Instant.now(), reportFile));
        out.flush();
        return result;
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
                    strength.awaitIsr();
            case PARTITION_TASKMANAGER -> strength.awaitTaskManagers();
            case KILL_LEADER_JOBMANAGER -> strength.awaitJobManagers();
            case KILL_TASKMANAGER -> strength.await();
            default -> {}
        }
        awaitOutputFlowing();
    }

    private void awaitOutputFlowing() {
        long now = System.currentTimeMillis();
        clock.await(
                "output flowing before the next fault",
                FaultInjector.RECOVERY_TIMEOUT,
                () -> observer.flowingSince(now));
    }

    /**
     * What the observer saw, what Kafka and Flink hold once the relay stopped (open transactions,
     * uncommitted records, FAILED jobs), and what kfp verify finds.
     */
    private DrillResult result(long produced, List<Recovery> recoveries) throws Exception {
        long ongoing;
        long lsoLag = 0;
        try (Admin admin = Topics.admin(settings)) {
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
            ongoing =
                    open.stream()
                            .filter(
                                    t ->
                                            t.transactionalId()
                                                    .startsWith(run.transactionalIdPrefix()))
                            .count();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < Topics.PARTITIONS; p++) {
                latest.put(new TopicPartition(run.output(), p), OffsetSpec.latest());
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
        long failed = relay.failedJobs();
        // The observer checks sequence numbers as they come; kfp verify then checks every byte of
        // every record.
        CopyReport copy;
        try {
            copy =
                    new RelayVerifier(
                                    settings.kafkaClient(),
                                    settings.run().resolve("verify"),
                                    RelayVerifier.DEFAULT_BUCKET_ENTRIES,
                                    3,
                                    null)
                            .verify(
                                    run.input(),
                                    RelayVerifier.Range.whole(),
                                    run.output(),
                                    RelayVerifier.Range.whole());
        } catch (RuntimeException e) {
            // What the observer saw is still reported; the drill is not clean without the
            // byte-for-byte check.
            clock.say("kfp verify could not check the topics: " + e.getMessage());
            copy = null;
        }
        OutputObserver.Counts counts = observer.counts(produced);
        return new DrillResult(
                produced,
                counts.distinct(),
                counts.duplicates(),
                counts.missing(),
                counts.misordered(),
                counts.strangers(),
                ongoing,
                lsoLag,
                failed,
                copy,
                recoveries,
                injector.alertChecks());
    }
}
