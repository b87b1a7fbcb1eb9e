package io.kfp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.bench.Harness.Run;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IntervalReportTest {

    /** One run of a case: its steady rate, its p99 (p50 half of it), 10 commits/s on the broker. */
    static Run run(String name, double rate, double p99) {
        double[] threads = ThreadCpu.none();
        return new Run(
                name,
                Harness.Kind.COPY,
                1,
                rate,
                1.2,
                threads,
                rate,
                rate,
                rate,
                1.2,
                1.5,
                10,
                500,
                2,
                3,
                new double[] {p99 / 2, p99, p99 + 10},
                new double[] {10, 2, 0, 0, 0});
    }

    static final IntervalReport.Published TODAY =
            new IntervalReport.Published(1_000_000, 1_100_000, 4966);

    static List<Run> runs(double relayRate100, double relayP99At100) {
        List<Run> runs = new ArrayList<>();
        runs.add(run(IntervalReport.defaultRelay("100ms"), relayRate100, relayP99At100));
        runs.add(run(IntervalReport.otherNamingRelay("100ms"), 500_000, 180));
        runs.add(run("streams-eos-100ms", 350_000, 150));
        runs.add(run("txn-loop-100ms", 800_000, 60));
        runs.add(run(IntervalReport.defaultRelay("5s"), 1_000_000, 4970));
        runs.add(run("streams-eos-5s", 600_000, 5030));
        runs.add(run("txn-loop-5s-2t", 1_200_000, 5000));
        return runs;
    }

    @Test
    void eachTargetIsDecidedFromTheMediansOfTheCasesItCompares() {
        String md = IntervalReport.markdown(runs(600_000, 140), 20_000_000, 1, 1, 30, TODAY);
        String fast = IntervalReport.defaultRelay("100ms");

        assertThat(md)
                .contains(
                        "| relay exactly-once >= 1.5x Streams exactly_once_v2 at 100ms | "
                                + fast
                                + " 600,000 vs streams-eos-100ms 350,000: 1.71x | met |",
                        "| relay p99 <= Streams' p99 at 100ms | "
                                + fast
                                + " 140 ms vs streams-eos-100ms 150 ms: 0.93x | met |",
                        "| (relay p99 <= Streams' p99 at 100ms) | "
                                + IntervalReport.otherNamingRelay("100ms")
                                + " 180 ms vs streams-eos-100ms 150 ms: 1.20x | MISSED |",
                        "| " + fast + " p99 <= 150 ms | p99 140 ms (p50 70, max 150) | met |",
                        "| " + fast + " steady rate >= 0.7x its own at 5 s | ",
                        ": 0.60x | MISSED |",
                        "| 0.83x here (1,000,000 vs 1,200,000) vs 0.91x in relay.md (1,000,000 vs"
                                + " 1,100,000) | met |",
                        "4970 ms vs 4966 ms | met |")
                .contains("| txn-loop-100ms | 100ms | 800,000 [800,000, 800,000] | ")
                .contains("| 10.0 | 2.0 | 12.0 | 30 / 60 / 70 |");
        // an interval with no Streams case to compare with has no ratio row
        assertThat(md).doesNotContain("at 200ms");
    }

    @Test
    void aP99AboveTheBoundAt100msOrAWorse5sRatioIsMissed() {
        // the published relay was 1.11x its baseline; 0.83x here is more than 10% worse
        String md =
                IntervalReport.markdown(
                        runs(800_000, 160),
                        20_000_000,
                        1,
                        1,
                        30,
                        new IntervalReport.Published(1_000_000, 900_000, 4966));

        assertThat(md)
                .contains(
                        "| "
                                + IntervalReport.defaultRelay("100ms")
                                + " p99 <= 150 ms | p99 160 ms (p50 80, max 170) | MISSED |",
                        "800,000 vs streams-eos-100ms 350,000: 2.29x | met |",
                        "160 ms vs streams-eos-100ms 150 ms: 1.07x | MISSED |",
                        ": 0.80x | met |",
                        "| 0.83x here (1,000,000 vs 1,200,000) vs 1.11x in relay.md (1,000,000 vs"
                                + " 900,000) | MISSED |");
    }

    @Test
    void thePublishedBaselineIsReadByColumnName() {
        IntervalReport.Published p =
                IntervalReport.Published.of(
                        List.of(
                                "latency_p99_ms,case,round,steady_records_per_s",
                                "4966,relay-eos-5s,1,1010130",
                                ",relay-eos-5s,2,785646",
                                ",relay-eos-5s,3,1036923",
                                "5033,streams-eos-5s,1,588195",
                                "4999,txn-loop-5s-2t,1,1138286"));

        assertThat(p).isEqualTo(new IntervalReport.Published(1_010_130, 1_138_286, 4966));
        assertThat(IntervalReport.Published.of(List.of("case,steady_records_per_s,latency_p99_ms")))
                .isEqualTo(IntervalReport.Published.NONE);
    }

    @Test
    void theIntervalAndTheSystemAreReadFromTheCaseName() {
        assertThat(IntervalReport.interval("relay-eos-200ms-p1-pooling")).isEqualTo("200ms");
        assertThat(IntervalReport.system("relay-eos-200ms-p1-pooling"))
                .isEqualTo("relay-eos-p1-pooling");
        assertThat(IntervalReport.system("txn-loop-5s-2t")).isEqualTo("txn-loop-2t");
        assertThat(IntervalReport.interval("copy-loop")).isNull();
    }

    @Test
    void theFrontierChartIsAnImage(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("intervals.png");
        IntervalReport.chart(runs(600_000, 140), png.toFile());

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1000);
        assertThat(image.getHeight()).isEqualTo(640);
    }
}
