package io.kfp.bench;

import com.sun.management.OperatingSystemMXBean;
import io.kfp.testkit.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Runs every case against one broker (embedded in this JVM, or {@code --bootstrap}), cases
 * alternating, each in a JVM of its own with the same heap, and writes
 * benchmarks/results/relay.{md,csv,png} (see {@link Report}).
 *
 * <p>A run: an {@link Observer} reads the run's output topic with read_committed from the start;
 * the case is launched; the backlog (RECORDS pre-produced records, or RECORDS records the case
 * produces itself) is through when all of it is visible to the observer. Then the latency phase:
 * {@value #LIVE_RATE} records/s for {@value #LIVE_SECONDS} s, each timed from its timestamp until
 * visible; copying cases get them in the run's own live topic from this JVM (after {@link
 * #writeBack}), producing cases produce (or are fed) them themselves after their backlog. Then the
 * case is stopped. Printing cases (sink-job, console-consumer) check and count their own stdout and
 * report.
 *
 * <p>Usage: {@code benchmarks/run relay [--quick] [--records N] [--rounds N] [--latency-rounds N]
 * [--bootstrap H:P] [--only CASE,...]}.
 */
public final class Harness {

    /** What a case does, which decides how it is watched. */
    enum Kind {
        /** writes RECORDS records into the output topic itself, then exits */
        PRODUCE,
        /**
         * like PRODUCE, from the lines a feeder process of its own sends it (on its stdin, or on a
         * loopback socket for ingest-job): the sending costs neither case's JVM, and both read
         * their input through the kernel as they would in use
         */
        FED,
        /** copies the input (and the live topic) into the output topic until stopped */
        COPY,
        /** relay window-count: counts per key and window; bounded */
        WINDOW,
        /** prints the input to its stdout, checks and counts it, exits after RECORDS lines */
        PRINT
    }

    record Case(String name, Kind kind) {}

    /**
     * The committed output (offsets below the last stable offsets, summed) at a moment, with the
     * case's CPU seconds then and the parts of them its kinds of thread used ({@link ThreadCpu}).
     */
    record Sample(long nanos, long committed, double cpu, double[] threads, long[] requests) {

        /** A sample without the broker's request counts (a broker not in this JVM). */
        Sample(long nanos, long committed, double cpu, double[] threads) {
            this(nanos, committed, cpu, threads, null);
        }
    }

    static final List<Case> CASES =
            List.of(
                    new Case("producer", Kind.PRODUCE),
                    new Case("ingest-job", Kind.FED),
                    new Case("console-producer", Kind.FED),
                    new Case("copy-loop", Kind.COPY),
                    new Case("copy-loop-2t", Kind.COPY),
                    new Case("txn-loop-5s", Kind.COPY),
                    new Case("txn-loop-5s-2t", Kind.COPY),
                    new Case("streams-alo", Kind.COPY),
                    new Case("streams-eos-100ms", Kind.COPY),
                    new Case("streams-eos-5s", Kind.COPY),
                    new Case("relay-alo-5s", Kind.COPY),
                    new Case("relay-eos-5s", Kind.COPY),
                    new Case("relay-alo-5s-p1", Kind.COPY),
                    new Case("relay-eos-5s-p1", Kind.COPY),
                    new Case("relay-eos-5s-pooling", Kind.COPY),
                    new Case("relay-alo-1s", Kind.COPY),
                    new Case("relay-eos-1s", Kind.COPY),
                    new Case("relay-window-count", Kind.WINDOW),
                    new Case("sink-job", Kind.PRINT),
                    new Case("sink-job-p1", Kind.PRINT),
                    new Case("console-consumer", Kind.PRINT));

    /** The commit intervals of the low-latency matrix. */
    static final List<String> INTERVALS = List.of("100ms", "200ms", "500ms", "1s", "5s");

    /**
     * Exactly-once at each of {@link #INTERVALS}: the relay at parallelism 2 and 1, with
     * incrementing and pooling transaction naming, Kafka Streams exactly_once_v2 and the
     * transactional loops (one and two threads) committing as often ({@code --only} picks them).
     */
    static final List<Case> INTERVAL_CASES =
            INTERVALS.stream()
                    .flatMap(
                            i ->
                                    Stream.of(
                                            "relay-eos-" + i,
                                            "relay-eos-" + i + "-pooling",
                                            "relay-eos-" + i + "-p1",
                                            "relay-eos-" + i + "-p1-pooling",
                                            "streams-eos-" + i,
                                            "txn-loop-" + i,
                                            "txn-loop-" + i + "-2t"))
                    .map(name -> new Case(name, Kind.COPY))
                    .toList();

    /**
     * 30,000,000 records (3 GB of values) by default: the exactly-once relay at 5 s checkpoints, at
     * the 848,287 records/s of the last 3-round run, takes about 35 s for them, so the middle of
     * its run (10%-90% of the records) spans five commit intervals or more, and the JVM's start and
     * warm-up (the first 1-3 s after the first output) fall before it. 10,000,000 (12 s at that
     * rate) leave a 5 s case one or two commits there.
     */
    static final long DEFAULT_RECORDS = 30_000_000;

    /**
     * 20,000,000 records for the interval matrix ({@code benchmarks/run intervals}): the 5 s relay,
     * at about 1,000,000 records/s, takes 20 s for them, so its middle holds three commits; the
     * slowest 100 ms case (Streams, about 400,000 records/s) takes under a minute.
     */
    static final long INTERVAL_RECORDS = 20_000_000;

    /**
     * Where the middle of a run, over which its steady rate is taken, begins and ends: shares of
     * RECORDS.
     */
    static final double MIDDLE_FROM = 0.1;

    static final double MIDDLE_TO = 0.9;
    static final int LIVE_RATE = 10_000;
    static final int LIVE_SECONDS = 6;

    /**
     * The interval matrix's latency phase: 20 s, so its p99 (the slowest 1% of 200,000 records, 200
     * ms of the phase) spans more than one 100 ms commit, not a single slow one.
     */
    static final int INTERVAL_LIVE_SECONDS = 20;

    /** The latency phase of this run, in seconds. */
    static int liveSeconds = LIVE_SECONDS;

    static final long CLK_TCK = 100;
    static final long RUN_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(10);
    static boolean jfr;

    /**
     * The case JVM running now, killed if the harness is stopped (Ctrl-C) so it cannot outlive it.
     */
    static volatile Process running;

    /** The line feeder of the case running now (FED cases), killed with it. */
    static volatile Process feeding;

    /**
     * One run of one case.
     *
     * @param rate records/s from the first output record written (committed or not) to done
     * @param writtenRate records/s from the first output record written to the last written
     *     (committed or not: the processing rate without the wait for the last commit), NaN for
     *     window-count
     * @param launchRate records/s from launching the case's JVM to done
     * @param middleRate the steady rate: records/s of committed output over the middle of the run,
     *     between the first commit at {@value #MIDDLE_FROM} of RECORDS or more and the last at
     *     {@value #MIDDLE_TO} or less (printing cases: between those shares of the lines printed);
     *     NaN when fewer than two commits fall there (a run too short for its commit interval) and
     *     for window-count
     * @param middleCpu client CPU seconds per million records over the same middle
     * @param middleThreadCpu the parts of middleCpu each {@link ThreadCpu.Group} used, s per
     *     million records, by ordinal; the JIT compilers' part is warm-up, not the steady state
     * @param steadyCpu client CPU seconds per million records between first output and done
     * @param totalCpu client CPU seconds per million records from launch to done (JVM and Flink
     *     start included)
     * @param firstWrite seconds from launch to the first output record written (printing cases:
     *     printed)
     * @param firstVisible seconds from launch to the first output record visible to read_committed
     * @param latency [p50, p99, max] ms from record timestamp to visible in the latency phase, or
     *     null
     * @param middleRequests the broker's transactional requests per second over the same middle, by
     *     {@link BrokerRequests#COUNTED} index (NaN with a broker not in this JVM, or no middle)
     */
    record Run(
            String name,
            Kind kind,
            int round,
            double middleRate,
            double middleCpu,
            double[] middleThreadCpu,
            double rate,
            double writtenRate,
            double launchRate,
            double steadyCpu,
            double totalCpu,
            double brokerCpu,
            long peakRssMb,
            double firstWrite,
            double firstVisible,
            double[] latency,
            double[] middleRequests) {

        /** Transactions committed (or aborted) per second on the broker over the middle. */
        double middleTransactions() {
            return middleRequests[BrokerRequests.END_TXN];
        }

        /** All transactional requests per second on the broker over the middle. */
        double middleTransactionalRequests() {
            return Arrays.stream(middleRequests).sum();
        }

        /** The part of the steady CPU per million records the JIT compiler threads used. */
        double middleJitCpu() {
            return middleThreadCpu(ThreadCpu.Group.JIT);
        }

        /** The part of the steady CPU per million records a kind of thread used. */
        double middleThreadCpu(ThreadCpu.Group group) {
            return middleThreadCpu[group.ordinal()];
        }

        /**
         * The steady CPU per million records without the JIT compiler threads': what the targets
         * compare.
         */
        double middleCpuWithoutJit() {
            return middleCpu - middleJitCpu();
        }

        /**
         * The steady CPU per million records of the threads in no group (task threads, main, ...).
         */
        double middleRestCpu() {
            double rest = middleCpu;
            for (double part : middleThreadCpu) {
                rest -= part;
            }
            return rest;
        }
    }

    private Harness() {}

    public static void main(String[] args) throws Exception {
        long records = DEFAULT_RECORDS;
        int rounds = 3;
        Integer latencyRounds = null;
        String bootstrap = null;
        List<Case> cases = CASES;
        boolean partial = false;
        boolean intervals = args.length > 0 && args[0].equals("--intervals");
        if (intervals) {
            records = INTERVAL_RECORDS;
            rounds = 1;
            cases = INTERVAL_CASES;
            liveSeconds = INTERVAL_LIVE_SECONDS;
        }
        for (int i = intervals ? 1 : 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> {
                    records = 10_000_000;
                    rounds = 1;
                }
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--latency-rounds" -> latencyRounds = Integer.parseInt(args[++i]);
                case "--bootstrap" -> bootstrap = args[++i];
                case "--jfr" -> jfr = true;
                case "--only" -> {
                    List<String> names = List.of(args[++i].split(","));
                    List<Case> known =
                            Stream.concat(CASES.stream(), INTERVAL_CASES.stream())
                                    .distinct()
                                    .toList();
                    cases = known.stream().filter(c -> names.contains(c.name())).toList();
                    if (cases.size() != names.size()) {
                        throw new IllegalArgumentException(
                                "--only "
                                        + args[i]
                                        + ": known cases are "
                                        + known.stream().map(Case::name).toList());
                    }
                    partial = true;
                }
                default ->
                        throw new IllegalArgumentException(
                                "unknown argument "
                                        + args[i]
                                        + "; usage: benchmarks/run relay|intervals [--quick] [--records N] [--rounds N] [--latency-rounds N] [--bootstrap H:P] [--only CASE,...] [--jfr]");
            }
        }
        // One latency phase per case (60,000 timed records) is plenty for p50/p99/max and keeps the
        // default run under 25 minutes.
        int withLatency = latencyRounds != null ? latencyRounds : 1;
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    for (Process p : new Process[] {running, feeding}) {
                                        if (p != null) {
                                            p.destroyForcibly();
                                        }
                                    }
                                },
                                "stop-case"));
        EmbeddedKafka kafka = null;
        if (bootstrap == null) {
            kafka = EmbeddedKafka.start(Path.of("benchmarks", "target", "kafka"));
            bootstrap = kafka.bootstrapServers();
        }
        try {
            run(bootstrap, kafka, cases, records, rounds, withLatency, partial, intervals);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    static void run(
            String bootstrap,
            EmbeddedKafka kafka,
            List<Case> cases,
            long records,
            int rounds,
            int latencyRounds,
            boolean partial,
            boolean intervals)
            throws Exception {
        long started = System.nanoTime();
        String input = "bench-in";
        createTopics(bootstrap, kafka, input);
        try {
            runAll(
                    started,
                    bootstrap,
                    kafka,
                    input,
                    cases,
                    records,
                    rounds,
                    latencyRounds,
                    partial,
                    intervals);
        } finally {
            // On a broker of one's own (--bootstrap) the next run creates the input again.
            try {
                deleteTopics(bootstrap, input);
            } catch (Exception e) {
                System.err.println(
                        "could not delete " + input + " (it stays on the broker's disk): " + e);
            }
        }
    }

    private static void runAll(
            long started,
            String bootstrap,
            EmbeddedKafka kafka,
            String input,
            List<Case> cases,
            long records,
            int rounds,
            int latencyRounds,
            boolean partial,
            boolean intervals)
            throws Exception {
        System.out.printf("producing %,d input records...%n", records);
        Cases.produce(bootstrap, input, records, 0);

        List<Run> runs = new ArrayList<>();
        int total = rounds * cases.size();
        for (int round = 1; round <= rounds; round++) {
            for (Case c : cases) {
                // Where the run is: a full one takes most of an hour.
                System.out.printf(
                        Locale.ROOT,
                        "[%d/%d] %s round %d, %.1f min so far%n",
                        runs.size() + 1,
                        total,
                        c.name(),
                        round,
                        (System.nanoTime() - started) / 60e9);
                Run run =
                        runCase(c, round, bootstrap, kafka, input, records, round <= latencyRounds);
                runs.add(run);
                System.out.printf(
                        Locale.ROOT,
                        "  %-18s round %d: steady %,10.0f records/s at %.2f CPU s per M records (%.2f JIT);"
                                + " first write -> all visible %,10.0f records/s, %.2f CPU s per M records (%.2f with start),"
                                + " broker %.1f CPU s, peak RSS %d MB, first write %.1f s, visible %.1f s%s%n",
                        c.name(),
                        round,
                        run.middleRate(),
                        run.middleCpu(),
                        run.middleJitCpu(),
                        run.rate(),
                        run.steadyCpu(),
                        run.totalCpu(),
                        run.brokerCpu(),
                        run.peakRssMb(),
                        run.firstWrite(),
                        run.firstVisible(),
                        run.latency() == null
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        ", latency p50 %.0f ms p99 %.0f ms max %.0f ms",
                                        run.latency()[0],
                                        run.latency()[1],
                                        run.latency()[2]));
            }
        }
        double minutes = (System.nanoTime() - started) / 60e9;
        if (intervals) {
            IntervalReport.write(runs, records, rounds, latencyRounds, minutes, partial);
        } else {
            Report.write(runs, records, rounds, latencyRounds, minutes, partial);
        }
    }

    static void createTopics(String bootstrap, EmbeddedKafka kafka, String... topics)
            throws Exception {
        if (kafka != null) {
            kafka.createTopics(4, topics);
            return;
        }
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(props)) {
            List<NewTopic> newTopics = new ArrayList<>();
            for (String topic : topics) {
                newTopics.add(new NewTopic(topic, 4, (short) 1));
            }
            try {
                admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicExistsException exists) {
                    throw new IllegalStateException(
                            "a topic of "
                                    + List.of(topics)
                                    + " already exists on "
                                    + bootstrap
                                    + " ("
                                    + exists.getMessage()
                                    + "), left by a run that"
                                    + " was killed? The harness uses bench-* topics of its own; delete them (kafka-topics.sh"
                                    + " --bootstrap-server "
                                    + bootstrap
                                    + " --delete --topic 'bench-.*') or use another broker.",
                            e);
                }
                throw e;
            }
        }
    }

    static Run runCase(
            Case c,
            int round,
            String bootstrap,
            EmbeddedKafka kafka,
            String input,
            long records,
            boolean withLatency)
            throws Exception {
        String output = "bench-" + c.name() + "-" + round;
        String live = output + "-live";
        createTopics(bootstrap, kafka, output, live);
        Path log = Path.of("benchmarks", "target", "case-" + output + ".log");
        Path result = Path.of("benchmarks", "target", "result-" + output + ".txt");
        Files.createDirectories(log.getParent());
        Files.deleteIfExists(result);
        // Copying cases get their latency phase from this JVM; producing cases run it themselves.
        long liveRecords =
                c.kind() != Kind.WINDOW && c.kind() != Kind.PRINT && withLatency
                        ? (long) LIVE_RATE * liveSeconds
                        : 0;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // A fixed set of compiler threads: a dynamic one may end a thread with CPU used since its
        // last reading (ThreadCpu).
        List<String> command =
                new ArrayList<>(
                        List.of(
                                java,
                                "-Xmx1g",
                                "-XX:-UseDynamicNumberOfCompilerThreads",
                                "-Dlog4j2.configurationFile=classpath:kfp-log4j2.properties",
                                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                                "--add-opens=java.base/java.util=ALL-UNNAMED"));
        if (jfr) {
            Path recordings = Files.createDirectories(Path.of("benchmarks", "target", "jfr"));
            command.add(
                    "-XX:StartFlightRecording=settings=profile,filename="
                            + recordings.resolve(output + ".jfr"));
            command.add("-Dbench.jfr=true");
        }
        List<String> feederCommand =
                new ArrayList<>(
                        List.of(
                                java,
                                "-Xmx256m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                Cases.class.getName(),
                                Cases.FEED_LINES,
                                String.valueOf(records),
                                String.valueOf(liveRecords)));
        command.addAll(
                List.of(
                        "-cp",
                        System.getProperty("java.class.path"),
                        Cases.class.getName(),
                        c.name(),
                        bootstrap,
                        input,
                        live,
                        output,
                        String.valueOf(records),
                        result.toString(),
                        String.valueOf(liveRecords)));

        Properties adminProps = new Properties();
        adminProps.setProperty("bootstrap.servers", bootstrap);
        Observer observer =
                c.kind() == Kind.PRINT
                        ? null
                        : new Observer(
                                bootstrap, output, records, liveRecords, c.kind() == Kind.WINDOW);
        Thread liveProducer = null;
        Process process = null;
        Process feeder = null;
        try (Admin admin = Admin.create(adminProps)) {
            if (c.name().equals("ingest-job")) {
                // Its lines on a loopback socket, as deployed; the feeder says on which port.
                feederCommand.add("--listen");
                feeder =
                        new ProcessBuilder(feederCommand)
                                .redirectError(ProcessBuilder.Redirect.INHERIT)
                                .start();
                feeding = feeder;
                String port =
                        new BufferedReader(new InputStreamReader(feeder.getInputStream()))
                                .readLine();
                if (port == null) {
                    throw new IllegalStateException(
                            "the line feeder for "
                                    + output
                                    + " exited without a port ("
                                    + feeder.waitFor()
                                    + ")");
                }
                command.add(command.indexOf("-cp"), "-Dbench.feeder=127.0.0.1:" + port.trim());
            }
            double brokerCpuBefore = processCpuSeconds();
            long launchMillis = System.currentTimeMillis();
            long launched = System.nanoTime();
            ProcessBuilder caseJvm =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile());
            if (c.kind() == Kind.FED && feeder == null) {
                // The feeder's stdout piped into the case's stdin, as `feeder |
                // kafka-console-producer`.
                List<Process> pipeline =
                        ProcessBuilder.startPipeline(
                                List.of(
                                        new ProcessBuilder(feederCommand)
                                                .redirectError(ProcessBuilder.Redirect.INHERIT),
                                        caseJvm));
                feeder = pipeline.get(0);
                feeding = feeder;
                process = pipeline.get(1);
            } else {
                process = caseJvm.start();
            }
            running = process;
            long pid = process.pid();
            ThreadCpu threadCpu = new ThreadCpu(pid);
            double cpu = 0;
            double[] threads = ThreadCpu.none();
            long rssKb = 0;
            long firstWrite = 0;
            long allWritten = 0;
            double cpuAtFirstWrite = 0;
            long done = 0;
            double cpuAtDone = 0;
            double brokerCpu = 0;
            long exited = 0;
            List<Sample> commits = new ArrayList<>();
            while (true) {
                double[] stat = procStat(pid);
                if (stat != null) {
                    cpu = Math.max(cpu, stat[0]);
                    rssKb = Math.max(rssKb, (long) stat[1]);
                    threads = threadCpu.cpuSeconds();
                }
                if (observer != null) {
                    if (observer.failure() != null) {
                        throw new IllegalStateException(
                                c.name()
                                        + " round "
                                        + round
                                        + ": "
                                        + observer.failure()
                                        + "; see "
                                        + log);
                    }
                    if (allWritten == 0) {
                        long written = endOffsetSum(admin, output, IsolationLevel.READ_UNCOMMITTED);
                        if (firstWrite == 0 && written > 0) {
                            firstWrite = System.nanoTime();
                            cpuAtFirstWrite = cpu;
                        }
                        if (written >= records && c.kind() != Kind.WINDOW) {
                            allWritten = System.nanoTime();
                        }
                    }
                    if (done == 0 && c.kind() != Kind.WINDOW) {
                        long committed = endOffsetSum(admin, output, IsolationLevel.READ_COMMITTED);
                        if (commits.isEmpty()
                                ? committed > 0
                                : committed != commits.get(commits.size() - 1).committed()) {
                            commits.add(
                                    new Sample(
                                            System.nanoTime(),
                                            committed,
                                            cpu,
                                            threads,
                                            BrokerRequests.counts(kafka != null)));
                        }
                    }
                    if (done == 0 && observer.backlogDoneNanos() != 0) {
                        done = observer.backlogDoneNanos();
                        cpuAtDone = cpu;
                        brokerCpu =
                                kafka == null
                                        ? Double.NaN
                                        : processCpuSeconds()
                                                - brokerCpuBefore
                                                - observer.cpuSeconds();
                        if (liveRecords > 0 && c.kind() == Kind.COPY) {
                            writeBack();
                            liveProducer = startLive(bootstrap, live, records, liveRecords);
                        }
                    }
                    if (observer.complete()) {
                        observer.close();
                        if (observer.failure() != null) {
                            throw new IllegalStateException(
                                    c.name()
                                            + " round "
                                            + round
                                            + ": "
                                            + observer.failure()
                                            + "; see "
                                            + log);
                        }
                        break;
                    }
                }
                if (!process.isAlive()) {
                    if (observer == null) {
                        break;
                    }
                    // A bounded case may exit right after its last commit: give the observer time
                    // to see it.
                    if (exited == 0) {
                        exited = System.nanoTime();
                    } else if (System.nanoTime() - exited > TimeUnit.SECONDS.toNanos(30)) {
                        throw new IllegalStateException(
                                c.name()
                                        + " round "
                                        + round
                                        + " exited ("
                                        + process.exitValue()
                                        + ") with "
                                        + observer.progress()
                                        + "; see "
                                        + log);
                    }
                }
                if (System.nanoTime() - launched > RUN_TIMEOUT_NANOS) {
                    throw new IllegalStateException(
                            c.name()
                                    + " round "
                                    + round
                                    + " not done after 10 min: "
                                    + (observer == null ? "" : observer.progress())
                                    + "; see "
                                    + log);
                }
                Thread.sleep(50);
            }
            if (observer == null) {
                return printed(
                        c,
                        round,
                        process,
                        log,
                        result,
                        records,
                        launchMillis,
                        cpu,
                        rssKb,
                        kafka == null ? Double.NaN : processCpuSeconds() - brokerCpuBefore);
            }
            if (done == 0 || (firstWrite == 0 && c.kind() != Kind.WINDOW)) {
                throw new IllegalStateException(
                        c.name()
                                + " round "
                                + round
                                + ": complete without a first write or done time; see "
                                + log);
            }
            double millions = records / 1e6;
            Middle middle = middle(commits, records);
            // window-count writes only as windows close, at the input's end: count it from launch.
            boolean fromLaunch = c.kind() == Kind.WINDOW;
            return new Run(
                    c.name(),
                    c.kind(),
                    round,
                    middle.rate(),
                    middle.cpu(),
                    middle.threads(),
                    records / ((done - (fromLaunch ? launched : firstWrite)) / 1e9),
                    allWritten == 0 ? Double.NaN : records / ((allWritten - firstWrite) / 1e9),
                    records / ((done - launched) / 1e9),
                    (cpuAtDone - (fromLaunch ? 0 : cpuAtFirstWrite)) / millions,
                    cpuAtDone / millions,
                    brokerCpu,
                    rssKb / 1024,
                    (firstWrite - launched) / 1e9,
                    (observer.firstVisibleNanos() - launched) / 1e9,
                    observer.latencyMillis(),
                    middle.requests());
        } finally {
            try {
                if (process != null) {
                    stop(process);
                    running = null;
                }
                if (feeder != null) {
                    feeder.destroyForcibly();
                    feeder.waitFor();
                    feeding = null;
                }
            } finally {
                if (observer != null) {
                    observer.close();
                }
                if (liveProducer != null) {
                    liveProducer.join();
                }
                // 30,000,000 copies are 4 GB on the broker's disk: a full run keeps only the input.
                // A failure here must not hide the one that ended the run.
                try {
                    deleteTopics(bootstrap, output, live);
                } catch (Exception e) {
                    System.err.println(
                            "could not delete "
                                    + output
                                    + " and "
                                    + live
                                    + " (they stay on the broker's disk): "
                                    + e);
                }
            }
        }
    }

    static void deleteTopics(String bootstrap, String... topics) throws Exception {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.deleteTopics(List.of(topics)).all().get(1, TimeUnit.MINUTES);
        }
    }

    /** A printing case's run, from the timings it wrote: first line, last line, its CPU at both. */
    private static Run printed(
            Case c,
            int round,
            Process process,
            Path log,
            Path result,
            long records,
            long launchMillis,
            double cpu,
            long rssKb,
            double brokerCpu)
            throws Exception {
        process.waitFor();
        if (process.exitValue() != 0 || !Files.exists(result)) {
            throw new IllegalStateException(
                    c.name()
                            + " round "
                            + round
                            + " failed (exit "
                            + process.exitValue()
                            + "); see "
                            + log);
        }
        String[] f = Files.readString(result).trim().split(" ");
        long first = Long.parseLong(f[0]);
        long done = Long.parseLong(f[1]);
        double cpuAtFirst = Double.parseDouble(f[2]);
        double cpuAtDone = Double.parseDouble(f[3]);
        long middleLines = Long.parseLong(f[4]);
        long middleNanos = Long.parseLong(f[5]);
        double middleCpu = Double.parseDouble(f[6]);
        double millions = records / 1e6;
        double[] middleThreads = ThreadCpu.none();
        for (int i = 0; i < middleThreads.length; i++) {
            middleThreads[i] = Double.parseDouble(f[7 + i]) / (middleLines / 1e6);
        }
        double firstSeconds = (first - launchMillis) / 1e3;
        double rate = records / ((done - first) / 1e3);
        return new Run(
                c.name(),
                c.kind(),
                round,
                middleLines / (middleNanos / 1e9),
                middleCpu / (middleLines / 1e6),
                middleThreads,
                rate,
                rate,
                records / ((done - launchMillis) / 1e3),
                (cpuAtDone - cpuAtFirst) / millions,
                Math.max(cpu, cpuAtDone) / millions,
                brokerCpu,
                rssKb / 1024,
                firstSeconds,
                firstSeconds,
                null,
                BrokerRequests.none());
    }

    /**
     * Stops a case at once (SIGKILL): its output is verified, and a clean shutdown would only cost
     * time. With --jfr: SIGTERM first, so the recording is written on the way out.
     */
    static void stop(Process process) throws InterruptedException {
        if (jfr) {
            process.destroy();
            if (process.waitFor(30, TimeUnit.SECONDS)) {
                return;
            }
        }
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * Writes the page cache's dirty data to disk ({@code sync}) before a copying case's latency
     * phase. Its backlog leaves gigabytes of broker log in the page cache, which the kernel writes
     * back up to 30 s later ({@code vm.dirty_expire_centisecs}), during the phase for a case fast
     * through its backlog. Without it, a 100 ms relay had one stall of up to a second at the start
     * of every phase measured (the tasks idle, the JobManager in the fsync of a checkpoint's
     * metadata on the same disk), and that stall set its p99; with it, none in three rounds.
     */
    static void writeBack() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").inheritIO().start();
        if (!sync.waitFor(2, TimeUnit.MINUTES)) {
            sync.destroyForcibly();
            throw new IllegalStateException("sync did not end within 2 min");
        }
    }

    /**
     * The latency phase of a copying case: COUNT paced records into its live topic, from FROM on.
     */
    static Thread startLive(String bootstrap, String topic, long from, long count) {
        Thread thread =
                new Thread(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> producer =
                                    new KafkaProducer<>(
                                            Cases.producerProps(bootstrap),
                                            new ByteArraySerializer(),
                                            new ByteArraySerializer())) {
                                Cases.sendPaced(producer, topic, from, count);
                            }
                        },
                        "live-producer-" + topic);
        thread.start();
        return thread;
    }

    /**
     * The steady state over the middle of a run: records/s, client CPU s per million records, and
     * the parts of that CPU each {@link ThreadCpu.Group} used, by ordinal, and the broker's
     * transactional requests per second ({@link BrokerRequests}); all NaN when there is no middle.
     */
    record Middle(double rate, double cpu, double[] threads, double[] requests) {
        /** No middle: a run too short for its commit interval, or window-count. */
        static Middle none() {
            double[] threads = ThreadCpu.none();
            Arrays.fill(threads, Double.NaN);
            return new Middle(Double.NaN, Double.NaN, threads, BrokerRequests.none());
        }
    }

    /**
     * The steady state ({@link Middle}) between the first sample at {@link #MIDDLE_FROM} of RECORDS
     * or more and the last at {@link #MIDDLE_TO} or less, or NaNs when fewer than two samples fall
     * there. Committed output grows in steps, one per commit, so the rate between two steps is
     * exact, and the wait for the last commit after the backlog (up to one interval, which says
     * nothing about throughput) is left out.
     */
    static Middle middle(List<Sample> samples, long records) {
        Sample from = null;
        Sample to = null;
        for (Sample sample : samples) {
            if (from == null && sample.committed() >= MIDDLE_FROM * records) {
                from = sample;
            }
            if (sample.committed() <= MIDDLE_TO * records) {
                to = sample;
            }
        }
        if (from == null || to == null || to.nanos() <= from.nanos()) {
            return Middle.none();
        }
        double millions = (to.committed() - from.committed()) / 1e6;
        double[] threads = ThreadCpu.none();
        for (int i = 0; i < threads.length; i++) {
            threads[i] = (to.threads()[i] - from.threads()[i]) / millions;
        }
        double seconds = (to.nanos() - from.nanos()) / 1e9;
        return new Middle(
                millions * 1e6 / seconds,
                (to.cpu() - from.cpu()) / millions,
                threads,
                BrokerRequests.perSecond(from.requests(), to.requests(), seconds));
    }

    /**
     * Offsets below the partitions' end offsets, summed: with READ_UNCOMMITTED everything written
     * (committed or not: shows the first output), with READ_COMMITTED what a read_committed reader
     * can see (records plus a transaction marker per partition and commit: a few per million).
     */
    static long endOffsetSum(Admin admin, String topic, IsolationLevel isolation) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        for (int p = 0; p < 4; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin
                .listOffsets(latest, new ListOffsetsOptions(isolation))
                .all()
                .get(10, TimeUnit.SECONDS)
                .values()
                .stream()
                .mapToLong(o -> o.offset())
                .sum();
    }

    /** [CPU seconds (user+system), RSS high-water mark in KiB] of a process, or null if gone. */
    static double[] procStat(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            double cpu = ThreadCpu.statCpuSeconds(stat);
            long hwm = 0;
            for (String line :
                    Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    hwm = Long.parseLong(line.replaceAll("\\D", ""));
                }
            }
            return new double[] {cpu, hwm};
        } catch (Exception gone) {
            return null;
        }
    }

    static double processCpuSeconds() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime()
                / 1e9;
    }
}
