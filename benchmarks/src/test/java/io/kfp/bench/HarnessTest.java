package io.kfp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.kfp.bench.Harness.Sample;
import io.kfp.testkit.EmbeddedKafka;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HarnessTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void steadyRateIsTakenBetweenCommitsInTheMiddleLeavingOutTheStartAndTheLastCommit() {
        // 30 M records committed in steps of 5 M every 5 s after a slow first step (start-up),
        // and a last commit that waits 4 s longer: the middle is the 1 M records/s in between.
        List<Sample> commits = new ArrayList<>();
        commits.add(new Sample(8 * SECOND, 2_000_000, 5.0, jit(0)));
        for (int i = 1; i <= 5; i++) {
            commits.add(
                    new Sample(
                            (8 + 5 * i) * SECOND, 2_000_000 + 5_000_000L * i, 5.0 + 4 * i, jit(0)));
        }
        commits.add(new Sample(47 * SECOND, 30_000_000, 40.0, jit(0)));

        Harness.Middle middle = Harness.middle(commits, 30_000_000);

        // from the commit at 7 M (13 s) to the one at 27 M (33 s): 20 M in 20 s, 16 CPU s
        assertThat(middle.rate()).isCloseTo(1_000_000, within(1e-6));
        assertThat(middle.cpu()).isCloseTo(0.8, within(1e-9));
    }

    @Test
    void continuousOutputIsMeasuredOverTheRecordsBetweenTenAndNinetyPercent() {
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            // 1,000 records every 50 ms, 10,000 after a slow start
            samples.add(
                    new Sample(
                            i * SECOND / 20, i * 1_000L + (i > 1 ? 9_000 : 0), i * 0.01, jit(0)));
        }
        Harness.Middle middle = Harness.middle(samples, 109_000);

        assertThat(middle.rate()).isCloseTo(20_000, within(1e-6));
    }

    @Test
    void aRunTooShortForItsCommitIntervalHasNoSteadyRate() {
        List<Sample> oneCommit =
                List.of(
                        new Sample(SECOND, 500_000, 1, jit(0)),
                        new Sample(6 * SECOND, 9_700_000, 6, jit(0)),
                        new Sample(9 * SECOND, 10_000_000, 8, jit(0)));

        for (Harness.Middle none :
                List.of(
                        Harness.middle(oneCommit, 10_000_000),
                        Harness.middle(List.of(), 10_000_000))) {
            assertThat(none.rate()).isNaN();
            assertThat(none.cpu()).isNaN();
            assertThat(none.threads())
                    .hasSize(ThreadCpu.Group.values().length)
                    .containsOnly(Double.NaN);
        }
    }

    @Test
    void theJitCompilersShareOfTheSteadyCpuIsTakenOverTheSameMiddle() {
        // 10 M records, a sample per 1 M every second; the compiler threads use 0.5 CPU s a second
        // until 4 s, then nothing more (warm-up over).
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            samples.add(new Sample(i * SECOND, i * 1_000_000L, 2.0 * i, jit(0.5 * Math.min(i, 4))));
        }
        Harness.Middle middle = Harness.middle(samples, 10_000_000);

        // from 1 M (1 s) to 9 M (9 s): 16 CPU s for 8 M records, of which the JIT's 1.5 s (1 s -> 4
        // s)
        assertThat(middle.cpu()).isCloseTo(2.0, within(1e-9));
        assertThat(middle.threads()[ThreadCpu.Group.JIT.ordinal()])
                .isCloseTo(1.5 / 8, within(1e-9));
        assertThat(middle.threads()).hasSize(ThreadCpu.Group.values().length);
    }

    @Test
    void eachKindOfThreadGetsItsOwnShareOfTheMiddle() {
        // per second: JIT 0.1, GC 0.2, fetcher 0.3, client I/O 0.4 CPU s, 1 M records
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            double[] threads = ThreadCpu.none();
            for (ThreadCpu.Group group : ThreadCpu.Group.values()) {
                threads[group.ordinal()] = 0.1 * (group.ordinal() + 1) * i;
            }
            samples.add(new Sample(i * SECOND, i * 1_000_000L, 2.0 * i, threads));
        }
        Harness.Middle middle = Harness.middle(samples, 10_000_000);

        for (ThreadCpu.Group group : ThreadCpu.Group.values()) {
            assertThat(middle.threads()[group.ordinal()])
                    .as(group.name())
                    .isCloseTo(0.1 * (group.ordinal() + 1), within(1e-9));
        }
        Harness.Run run =
                new Harness.Run(
                        "x",
                        Harness.Kind.COPY,
                        1,
                        middle.rate(),
                        middle.cpu(),
                        middle.threads(),
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        null,
                        new double[] {10, 1, 2, 0, 0});
        assertThat(run.middleRestCpu()).isCloseTo(2.0 - 1.0, within(1e-9));
        // every CSV row has the header's columns
        String[] csv = Report.csv(List.of(run)).split("\n");
        assertThat(csv[1].split(",", -1)).hasSameSizeAs(csv[0].split(",", -1));
    }

    @Test
    void threadsAreGroupedByTheNameLinuxKeepsAndTheirCpuReadFromProc() throws Exception {
        assertThat(ThreadCpu.Group.of("C2 CompilerThre")).isEqualTo(ThreadCpu.Group.JIT);
        assertThat(ThreadCpu.Group.of("C1 CompilerThre")).isEqualTo(ThreadCpu.Group.JIT);
        assertThat(ThreadCpu.Group.of("GC Thread#0")).isEqualTo(ThreadCpu.Group.GC);
        assertThat(ThreadCpu.Group.of("G1 Conc#0")).isEqualTo(ThreadCpu.Group.GC);
        assertThat(ThreadCpu.Group.of("Source Data Fet")).isEqualTo(ThreadCpu.Group.FETCHER);
        assertThat(ThreadCpu.Group.of("kafka-producer-")).isEqualTo(ThreadCpu.Group.CLIENT_IO);
        assertThat(ThreadCpu.Group.of("main")).isNull();
        assertThat(ThreadCpu.Group.of("Source: kafka (")).as("a task thread is the rest").isNull();
        // A name with spaces and a parenthesis: fields count from the last ')'; utime 250 + stime
        // 50 ticks.
        String stat =
                "4242 (Source: a (1/2)) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 30 0 100 200 300";
        assertThat(ThreadCpu.statCpuSeconds(stat)).isCloseTo(3.0, within(1e-9));

        // A thread named as Flink names a source's fetcher burns 0.3 s of CPU (as the JVM counts
        // it): it is the fetchers' group.
        ThreadCpu threadCpu = ThreadCpu.self();
        double before = threadCpu.cpuSeconds()[ThreadCpu.Group.FETCHER.ordinal()];
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        AtomicLong burnt = new AtomicLong();
        CountDownLatch named = new CountDownLatch(1);
        Thread fetcher =
                new Thread(
                        () -> {
                            named.countDown(); // running, so HotSpot has given the thread its name
                            while (bean.getCurrentThreadCpuTime() < 300_000_000L) {
                                Thread.onSpinWait();
                            }
                            burnt.set(bean.getCurrentThreadCpuTime());
                        },
                        "Source Data Fetcher for Source: test (1/1)");
        fetcher.start();
        named.await();
        double during = 0;
        while (fetcher.isAlive()) {
            during = Math.max(during, threadCpu.cpuSeconds()[ThreadCpu.Group.FETCHER.ordinal()]);
            Thread.sleep(20);
        }
        assertThat(before).isZero();
        assertThat(burnt.get()).isGreaterThanOrEqualTo(300_000_000L);
        // /proc counts in 10 ms ticks, and the last sample may come up to 20 ms before the thread
        // ended
        assertThat(during).isBetween(0.2, 0.35);

        // This JVM has compiled the code it ran by now, on the compiler threads, a part of its CPU.
        double jit = threadCpu.cpuSeconds()[ThreadCpu.Group.JIT.ordinal()];
        assertThat(jit).isPositive().isLessThan(Harness.processCpuSeconds());
    }

    @Test
    void theRestIsTheSteadyCpuNoGroupOfThreadsUsed() {
        double[] parts = ThreadCpu.none();
        parts[ThreadCpu.Group.JIT.ordinal()] = 0.1;
        parts[ThreadCpu.Group.FETCHER.ordinal()] = 0.2;
        parts[ThreadCpu.Group.CLIENT_IO.ordinal()] = 0.3;
        Harness.Run run =
                new Harness.Run(
                        "x",
                        Harness.Kind.COPY,
                        1,
                        1,
                        1.0,
                        parts,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        1,
                        null,
                        BrokerRequests.none());

        assertThat(run.middleJitCpu()).isEqualTo(0.1);
        assertThat(run.middleCpuWithoutJit()).isCloseTo(0.9, within(1e-9));
        assertThat(run.middleRestCpu()).isCloseTo(0.4, within(1e-9));
    }

    /** The group CPU of a sample whose compiler threads used {@code seconds}, the others none. */
    private static double[] jit(double seconds) {
        double[] threads = ThreadCpu.none();
        threads[ThreadCpu.Group.JIT.ordinal()] = seconds;
        return threads;
    }

    @Test
    void aBenchTopicLeftOnAnOutsideBrokerIsRefusedNamingItAndTheWayOut(@TempDir Path dir)
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            String bootstrap = kafka.bootstrapServers();
            // --bootstrap: the harness creates its topics through the Admin API, as on any broker
            Harness.createTopics(bootstrap, null, "bench-in");

            assertThatThrownBy(() -> Harness.createTopics(bootstrap, null, "bench-in"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("[bench-in] already exists on " + bootstrap)
                    .hasMessageContaining("--delete --topic 'bench-.*'");

            Harness.deleteTopics(bootstrap, "bench-in");
        }
    }

    @Test
    void everyCaseOfTheIntervalMatrixNamesAKnownSystemIntervalAndVariant() {
        assertThat(Harness.INTERVAL_CASES).hasSize(Harness.INTERVALS.size() * 7);
        assertThat(Harness.INTERVAL_CASES)
                .allMatch(c -> Cases.INTERVAL_CASE.matcher(c.name()).matches());
        assertThat(Harness.INTERVAL_CASES.stream().map(Harness.Case::name))
                .contains("relay-eos-100ms", "relay-eos-200ms-p1-pooling", "streams-eos-5s")
                .doesNotHaveDuplicates();
        assertThatThrownBy(() -> Cases.committingEvery("relay-eos-100", "b", "in", "out"))
                .hasMessageContaining("unknown case relay-eos-100");
        assertThatThrownBy(() -> Cases.committingEvery("relay-alo-1s-x", "b", "in", "out"))
                .hasMessageContaining("unknown case");
    }
}
