package io.kfp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.kfp.bench.Harness.Sample;
import io.kfp.embedded.EmbeddedKafka;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HarnessTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void steadyRateIsTakenBetweenCommitsInTheMiddleLeavingOutTheStartAndTheLastCommit() {
        // 30 M records committed in steps of 5 M every 5 s after a slow first step (start-up),
        // and a last commit that waits 4 s longer: the middle is the 1 M records/s in between.
        List<Sample> commits = new ArrayList<>();
        commits.add(new Sample(8 * SECOND, 2_000_000, 5.0, 0));
        for (int i = 1; i <= 5; i++) {
            commits.add(new Sample((8 + 5 * i) * SECOND, 2_000_000 + 5_000_000L * i, 5.0 + 4 * i, 0));
        }
        commits.add(new Sample(47 * SECOND, 30_000_000, 40.0, 0));

        double[] middle = Harness.middle(commits, 30_000_000);

        // from the commit at 7 M (13 s) to the one at 27 M (33 s): 20 M in 20 s, 16 CPU s
        assertThat(middle[0]).isCloseTo(1_000_000, within(1e-6));
        assertThat(middle[1]).isCloseTo(0.8, within(1e-9));
    }

    @Test
    void continuousOutputIsMeasuredOverTheRecordsBetweenTenAndNinetyPercent() {
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            // 1,000 records every 50 ms, 10,000 after a slow start
            samples.add(new Sample(i * SECOND / 20, i * 1_000L + (i > 1 ? 9_000 : 0), i * 0.01, 0));
        }
        double[] middle = Harness.middle(samples, 109_000);

        assertThat(middle[0]).isCloseTo(20_000, within(1e-6));
    }

    @Test
    void aRunTooShortForItsCommitIntervalHasNoSteadyRate() {
        List<Sample> oneCommit = List.of(new Sample(SECOND, 500_000, 1, 0), new Sample(6 * SECOND, 9_700_000, 6, 0),
                new Sample(9 * SECOND, 10_000_000, 8, 0));

        assertThat(Harness.middle(oneCommit, 10_000_000)).containsExactly(Double.NaN, Double.NaN, Double.NaN);
        assertThat(Harness.middle(List.of(), 10_000_000)).containsExactly(Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void theJitCompilersShareOfTheSteadyCpuIsTakenOverTheSameMiddle() {
        // 10 M records, a sample per 1 M every second; the compiler threads use 0.5 CPU s a second
        // until 4 s, then nothing more (warm-up over).
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            samples.add(new Sample(i * SECOND, i * 1_000_000L, 2.0 * i, 0.5 * Math.min(i, 4)));
        }
        double[] middle = Harness.middle(samples, 10_000_000);

        // from 1 M (1 s) to 9 M (9 s): 16 CPU s for 8 M records, of which the JIT's 1.5 s (1 s -> 4 s)
        assertThat(middle[1]).isCloseTo(2.0, within(1e-9));
        assertThat(middle[2]).isCloseTo(1.5 / 8, within(1e-9));
    }

    @Test
    void compilerThreadsAreFoundByTheirNameAndTheirCpuReadFromProc() {
        assertThat(CompilerThreads.isCompiler("C2 CompilerThre")).isTrue();
        assertThat(CompilerThreads.isCompiler("C1 CompilerThre")).isTrue();
        assertThat(CompilerThreads.isCompiler("GC Thread#0")).isFalse();
        assertThat(CompilerThreads.isCompiler("main")).isFalse();
        // A name with spaces and a parenthesis: fields count from the last ')'; utime 250 + stime 50 ticks.
        String stat = "4242 (Source: a (1/2)) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 30 0 100 200 300";
        assertThat(CompilerThreads.statCpuSeconds(stat)).isCloseTo(3.0, within(1e-9));

        // This JVM has compiled the code it ran by now, on those threads only.
        double jit = CompilerThreads.self().cpuSeconds();
        double process = Harness.processCpuSeconds();
        assertThat(jit).isPositive().isLessThan(process);
    }

    @Test
    void aBenchTopicLeftOnAnOutsideBrokerIsRefusedNamingItAndTheWayOut(@TempDir Path dir) throws Exception {
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
}
