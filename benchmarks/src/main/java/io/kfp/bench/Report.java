package io.kfp.bench;

import io.kfp.bench.Harness.Run;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * Writes benchmarks/results/relay.csv (every run), relay.md (median [min, max] per case, and the
 * targets with the figures that decide them; also copied into benchmarks/README.md) and relay.png
 * (throughput, CPU per record, latency).
 */
final class Report {

    private final Map<String, List<Run>> byCase = new LinkedHashMap<>();

    Report(List<Run> runs) {
        runs.forEach(r -> byCase.computeIfAbsent(r.name(), n -> new ArrayList<>()).add(r));
    }

    /** The cases that ran, in the order they first ran. */
    List<String> cases() {
        return List.copyOf(byCase.keySet());
    }

    /** Writes the relay run's results ({@link #publish}). */
    static void write(
            List<Run> runs,
            long records,
            int rounds,
            int latencyRounds,
            double minutes,
            boolean partial)
            throws Exception {
        Report report = new Report(runs);
        publish(
                "relay",
                runs,
                report.markdown(records, rounds, latencyRounds, minutes),
                report::chart,
                partial);
    }

    /** Draws a run's chart into a file. */
    interface Chart {
        void draw(File file) throws Exception;
    }

    /**
     * Writes NAME.csv (every run), NAME.md and NAME.png: a whole run's into benchmarks/results and
     * NAME.md also into the README's NAME-results section, a {@code partial} one's ({@code --only})
     * into benchmarks/target/results only, so a few cases tried never replace the published
     * figures.
     */
    static void publish(String name, List<Run> runs, String md, Chart chart, boolean partial)
            throws Exception {
        Path dir =
                partial
                        ? Path.of("benchmarks", "target", "results")
                        : Path.of("benchmarks", "results");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".csv"), csv(runs));
        Files.writeString(dir.resolve(name + ".md"), md);
        if (!partial) {
            ReadmeSection.replace(Path.of("benchmarks", "README.md"), name + "-results", md);
        }
        chart.draw(dir.resolve(name + ".png").toFile());
        System.out.println();
        System.out.print(md);
    }

    static String csv(List<Run> runs) {
        StringBuilder csv =
                new StringBuilder(
                        "case,round,steady_records_per_s,steady_client_cpu_s_per_million,");
        for (ThreadCpu.Group group : ThreadCpu.Group.values()) {
            csv.append("steady_")
                    .append(group.name().toLowerCase(Locale.ROOT))
                    .append("_cpu_s_per_million,");
        }
        csv.append(
                "records_per_s,written_records_per_s,launch_to_done_records_per_s,client_cpu_s_per_million,"
                        + "client_cpu_s_per_million_with_start,broker_cpu_s,peak_rss_mb,launch_to_first_write_s,launch_to_first_visible_s,"
                        + "latency_p50_ms,latency_p99_ms,latency_max_ms,"
                        + "steady_broker_end_txn_per_s,steady_broker_init_producer_id_per_s,"
                        + "steady_broker_txn_requests_per_s\n");
        for (Run r : runs) {
            StringBuilder threads = new StringBuilder();
            for (double part : r.middleThreadCpu()) {
                threads.append(String.format(Locale.ROOT, "%.3f,", part));
            }
            csv.append(
                    String.format(
                            Locale.ROOT,
                            "%s,%d,%.0f,%.3f,%s%.0f,%.0f,%.0f,%.3f,%.3f,%.2f,%d,%.2f,%.2f,%s,%s%n",
                            r.name(),
                            r.round(),
                            r.middleRate(),
                            r.middleCpu(),
                            threads,
                            r.rate(),
                            r.writtenRate(),
                            r.launchRate(),
                            r.steadyCpu(),
                            r.totalCpu(),
                            r.brokerCpu(),
                            r.peakRssMb(),
                            r.firstWrite(),
                            r.firstVisible(),
                            r.latency() == null
                                    ? ",,"
                                    : String.format(
                                            Locale.ROOT,
                                            "%.0f,%.0f,%.0f",
                                            r.latency()[0],
                                            r.latency()[1],
                                            r.latency()[2]),
                            Double.isNaN(r.middleTransactions())
                                    ? ",,"
                                    : String.format(
                                            Locale.ROOT,
                                            "%.1f,%.1f,%.1f",
                                            r.middleTransactions(),
                                            r.middleRequests()[BrokerRequests.INIT_PRODUCER_ID],
                                            r.middleTransactionalRequests())));
        }
        return csv.toString();
    }

    private List<Double> values(String name, ToDoubleFunction<Run> field) {
        return byCase.getOrDefault(name, List.of()).stream().mapToDouble(field).boxed().toList();
    }

    /** Median of a case's field over its runs, NaN if the case did not run. */
    double median(String name, ToDoubleFunction<Run> field) {
        return median(values(name, field));
    }

    /** The middle value (the upper one of an even count), NaN for none. */
    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? Double.NaN : sorted.get(sorted.size() / 2);
    }

    String spread(String name, ToDoubleFunction<Run> field, String format) {
        List<Double> v = values(name, field);
        return String.format(
                Locale.ROOT,
                format + " [" + format + ", " + format + "]",
                median(name, field),
                v.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
                v.stream().mapToDouble(d -> d).max().orElse(Double.NaN));
    }

    /** [median p50, median p99, max max] over the runs with a latency phase, or null. */
    double[] latency(String name) {
        List<double[]> l =
                byCase.getOrDefault(name, List.of()).stream()
                        .map(Run::latency)
                        .filter(Objects::nonNull)
                        .toList();
        if (l.isEmpty()) {
            return null;
        }
        double[] p50 = l.stream().mapToDouble(x -> x[0]).sorted().toArray();
        double[] p99 = l.stream().mapToDouble(x -> x[1]).sorted().toArray();
        return new double[] {
            p50[p50.length / 2],
            p99[p99.length / 2],
            l.stream().mapToDouble(x -> x[2]).max().orElse(0)
        };
    }

    String markdown(long records, int rounds, int latencyRounds, double minutes) {
        StringBuilder md =
                new StringBuilder(
                        String.format(
                                Locale.ROOT,
                                "%,d records of 100 bytes (8-byte keys), 4 partitions, parallelism 2 (1 for -p1, one thread for the loops, two for -2t),"
                                        + " %d rounds, cases alternating, each in its own JVM (-Xmx1g); median [min, max]. **Steady** records/s and CPU: the"
                                        + " committed output's growth (last stable offsets) over the middle of the run, from the first commit at %.0f%% of the"
                                        + " records to the last at %.0f%% (printing cases: lines printed between those shares), so neither start-up nor the"
                                        + " wait for the last commit counts. **JIT**: the part of the steady CPU the JVM's JIT compiler threads"
                                        + " used - warm-up, which a long-running job no longer pays; the CPU targets compare the steady CPU without it"
                                        + " (the ratio with it beside). **First write -> all visible**: from the first output record written to the moment"
                                        + " the last is visible to a read_committed consumer (window-count: from launch, as it writes only when windows close);"
                                        + " \"with start\" includes the JVM's (and Flink's) start. Latency: %,d records/s for %d s after the backlog (produced by the case itself for producing cases), record timestamp -> visible to read_committed"
                                        + " (Micrometer timer; median of the rounds' p50 and p99, max of their max; %d round(s)). The whole run took %.1f min.%n%n",
                                records,
                                rounds,
                                100 * Harness.MIDDLE_FROM,
                                100 * Harness.MIDDLE_TO,
                                Harness.LIVE_RATE,
                                Harness.LIVE_SECONDS,
                                latencyRounds,
                                minutes));
        md.append(
                "| case | steady records/s | steady client CPU s / M records | of which JIT | records/s first write -> all visible | records/s written"
                        + " | records/s from launch | client CPU s / M records, first write -> all visible | with start | broker CPU s (harness JVM)"
                        + " | peak RSS MB | launch -> first write / visible (s) | latency p50 / p99 / max (ms) |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        byCase.forEach(
                (name, list) -> {
                    double[] lat = latency(name);
                    md.append(
                            String.format(
                                    Locale.ROOT,
                                    "| %s | %s | %s | %s | %s | %s | %,.0f | %s | %.2f | %.1f | %d | %.1f / %.1f | %s |%n",
                                    name,
                                    spread(name, Run::middleRate, "%,.0f"),
                                    spread(name, Run::middleCpu, "%.2f"),
                                    spread(name, Run::middleJitCpu, "%.2f"),
                                    spread(name, Run::rate, "%,.0f"),
                                    Double.isNaN(median(name, Run::writtenRate))
                                            ? "-"
                                            : String.format(
                                                    Locale.ROOT,
                                                    "%,.0f",
                                                    median(name, Run::writtenRate)),
                                    median(name, Run::launchRate),
                                    spread(name, Run::steadyCpu, "%.2f"),
                                    median(name, Run::totalCpu),
                                    median(name, Run::brokerCpu),
                                    list.stream().mapToLong(Run::peakRssMb).max().orElse(0),
                                    median(name, Run::firstWrite),
                                    median(name, Run::firstVisible),
                                    lat == null
                                            ? "-"
                                            : String.format(
                                                    Locale.ROOT,
                                                    "%.0f / %.0f / %.0f",
                                                    lat[0],
                                                    lat[1],
                                                    lat[2])));
                });
        threads(md);
        md.append(
                "\nTargets of issues #7 and #15 (medians of this run; rates and CPU are the steady ones):\n\n| target | figures | |\n|---|---|---|\n");
        ratio(
                md,
                "ingest >= 1.0x Kafka's console producer",
                "ingest-job",
                "console-producer",
                Run::middleRate,
                1.0,
                true);
        cpu(
                md,
                "ingest CPU per record <= the console producer's",
                "ingest-job",
                "console-producer",
                1.0);
        ratio(
                md,
                "sink >= 1.0x Kafka's console consumer",
                "sink-job",
                "console-consumer",
                Run::middleRate,
                1.0,
                true);
        cpu(
                md,
                "sink CPU per record <= the console consumer's",
                "sink-job",
                "console-consumer",
                1.0);
        ratio(
                md,
                "(sink at parallelism 1, the like of the one-thread console consumer) >= 1.0x",
                "sink-job-p1",
                "console-consumer",
                Run::middleRate,
                1.0,
                true);
        cpu(
                md,
                "(sink at parallelism 1) CPU per record <= the console consumer's",
                "sink-job-p1",
                "console-consumer",
                1.0);
        ratio(
                md,
                "relay exactly-once (5 s), parallelism 2, >= 0.95x the transactional loop on two threads",
                "relay-eos-5s",
                "txn-loop-5s-2t",
                Run::middleRate,
                0.95,
                true);
        ratio(
                md,
                "relay exactly-once (5 s), parallelism 1, >= 0.95x the transactional loop on one thread",
                "relay-eos-5s-p1",
                "txn-loop-5s",
                Run::middleRate,
                0.95,
                true);
        cpu(
                md,
                "relay exactly-once CPU per record, parallelism 2, <= 1.2x the plain loop's on two threads (compass: 1.0x)",
                "relay-eos-5s",
                "copy-loop-2t",
                1.2);
        cpu(
                md,
                "relay exactly-once CPU per record, parallelism 1, <= 1.2x the plain loop's on one thread (compass: 1.0x)",
                "relay-eos-5s-p1",
                "copy-loop",
                1.2);
        cost(md, "relay-eos-5s", "relay-alo-5s", "parallelism 2");
        cost(md, "relay-eos-5s-p1", "relay-alo-5s-p1", "parallelism 1");
        ratio(
                md,
                "relay exactly-once >= 1.5x Kafka Streams exactly_once_v2, same commit interval (5 s)",
                "relay-eos-5s",
                "streams-eos-5s",
                Run::middleRate,
                1.5,
                true);
        ratio(
                md,
                "(the same against Streams' 100 ms default)",
                "relay-eos-5s",
                "streams-eos-100ms",
                Run::middleRate,
                1.5,
                true);
        ratio(
                md,
                "(relay exactly-once vs the transactional loop, first write -> all visible, the measure before #15)",
                "relay-eos-5s",
                "txn-loop-5s-2t",
                Run::rate,
                0.95,
                true);
        for (String[] c : new String[][] {{"relay-eos-5s", "5500"}, {"relay-eos-1s", "1500"}}) {
            double[] lat = latency(c[0]);
            if (lat != null) {
                md.append(
                        String.format(
                                Locale.ROOT,
                                "| %s p99 latency <= checkpoint interval + 0.5 s (%s ms) | p99 %.0f ms (p50 %.0f, max %.0f) | %s |%n",
                                c[0],
                                c[1],
                                lat[1],
                                lat[0],
                                lat[2],
                                lat[1] <= Double.parseDouble(c[1]) ? "met" : "MISSED"));
            }
        }
        for (String name : List.of("relay-eos-5s", "relay-eos-1s", "relay-alo-1s")) {
            double write = median(name, Run::firstWrite);
            if (!Double.isNaN(write)) {
                md.append(
                        String.format(
                                Locale.ROOT,
                                "| %s submit (JVM launch) -> first output record <= 3 s | written %.1f s, visible to read_committed %.1f s | %s |%n",
                                name,
                                write,
                                median(name, Run::firstVisible),
                                write <= 3 ? "met" : "MISSED"));
            }
        }
        return md.toString();
    }

    /**
     * The steady CPU per record split by kind of thread ({@link ThreadCpu}): which side of a source
     * or a client costs what.
     */
    private void threads(StringBuilder md) {
        md.append(
                "\nWhere the steady CPU goes, by kind of thread (CPU s per million records, medians; each thread's CPU from"
                        + " `/proc/PID/task`, told apart by name; **the rest**: the threads of no group - Flink's task threads, a loop's or"
                        + " console client's main thread, Kafka Streams' stream threads):\n\n| case | steady CPU |");
        for (ThreadCpu.Group group : ThreadCpu.Group.values()) {
            md.append(' ').append(group.label).append(" |");
        }
        md.append(" the rest |\n|---|---|")
                .append("---|".repeat(ThreadCpu.Group.values().length))
                .append("---|\n");
        byCase.forEach(
                (name, list) -> {
                    if (Double.isNaN(median(name, Run::middleCpu))) {
                        return; // no steady middle (window-count)
                    }
                    md.append(
                            String.format(
                                    Locale.ROOT,
                                    "| %s | %.2f |",
                                    name,
                                    median(name, Run::middleCpu)));
                    for (ThreadCpu.Group group : ThreadCpu.Group.values()) {
                        md.append(
                                String.format(
                                        Locale.ROOT,
                                        " %.2f |",
                                        median(name, r -> r.middleThreadCpu(group))));
                    }
                    md.append(
                            String.format(
                                    Locale.ROOT, " %.2f |%n", median(name, Run::middleRestCpu)));
                });
    }

    /**
     * Exactly-once vs at-least-once cost <= 5% on the steady rate (and, shown beside it, on CPU per
     * record).
     */
    private void cost(StringBuilder md, String eosCase, String aloCase, String where) {
        double eos = median(eosCase, Run::middleRate);
        double alo = median(aloCase, Run::middleRate);
        if (Double.isNaN(eos) || Double.isNaN(alo)) {
            return;
        }
        double eosCpu = median(eosCase, Run::middleCpuWithoutJit);
        double aloCpu = median(aloCase, Run::middleCpuWithoutJit);
        md.append(
                String.format(
                        Locale.ROOT,
                        "| exactly-once vs at-least-once cost <= 5%% on the steady rate (5 s, %s) | %s %,.0f vs %s %,.0f (%+.1f%%);"
                                + " CPU without JIT %.2f vs %.2f (%+.1f%%) | %s |%n",
                        where,
                        eosCase,
                        eos,
                        aloCase,
                        alo,
                        100 * (eos / alo - 1),
                        eosCpu,
                        aloCpu,
                        100 * (eosCpu / aloCpu - 1),
                        1 - eos / alo <= 0.05 ? "met" : "MISSED"));
    }

    /**
     * A CPU-per-record target: the steady CPU without the JIT compiler threads', with the ratio
     * including them beside it.
     */
    private void cpu(StringBuilder md, String target, String ours, String theirs, double bound) {
        double a = median(ours, Run::middleCpuWithoutJit);
        double b = median(theirs, Run::middleCpuWithoutJit);
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return;
        }
        md.append(
                String.format(
                        Locale.ROOT,
                        "| %s | %s %.2f vs %s %.2f without JIT: %.2fx (with JIT %.2f vs %.2f: %.2fx) | %s |%n",
                        target,
                        ours,
                        a,
                        theirs,
                        b,
                        a / b,
                        median(ours, Run::middleCpu),
                        median(theirs, Run::middleCpu),
                        median(ours, Run::middleCpu) / median(theirs, Run::middleCpu),
                        a / b <= bound ? "met" : "MISSED"));
    }

    private void ratio(
            StringBuilder md,
            String target,
            String ours,
            String theirs,
            ToDoubleFunction<Run> field,
            double bound,
            boolean higherIsBetter) {
        double a = median(ours, field);
        double b = median(theirs, field);
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return;
        }
        boolean met = higherIsBetter ? a / b >= bound : a / b <= bound;
        String format =
                higherIsBetter ? "%s %,.0f vs %s %,.0f: %.2fx" : "%s %.2f vs %s %.2f: %.2fx";
        md.append(
                String.format(
                        Locale.ROOT,
                        "| %s | " + format + " | %s |%n",
                        target,
                        ours,
                        a,
                        theirs,
                        b,
                        a / b,
                        met ? "met" : "MISSED"));
    }

    /** Bars: median records/s, median client CPU s per million records, latency p50 and p99. */
    void chart(File file) throws Exception {
        List<String> names = new ArrayList<>(byCase.keySet());
        List<String> timed = names.stream().filter(n -> latency(n) != null).toList();
        int row = 22;
        int rateTop = 10;
        int cpuTop = rateTop + 30 + names.size() * row;
        int latencyTop = cpuTop + 30 + names.size() * row;
        int height = latencyTop + 40 + timed.size() * row;
        BufferedImage image = new BufferedImage(1000, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, 1000, height);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        // window-count has no steady rate (it writes when its windows close): its rate from launch.
        double[] rates =
                names.stream()
                        .mapToDouble(
                                n ->
                                        Double.isNaN(median(n, Run::middleRate))
                                                ? median(n, Run::rate)
                                                : median(n, Run::middleRate))
                        .toArray();
        double[] cpus =
                names.stream()
                        .mapToDouble(
                                n ->
                                        Double.isNaN(median(n, Run::middleCpu))
                                                ? median(n, Run::steadyCpu)
                                                : median(n, Run::middleCpuWithoutJit))
                        .toArray();
        bars(
                g,
                "steady records/s (median; window-count: from launch)",
                names,
                rates,
                null,
                rateTop,
                row,
                new Color(0x3366cc),
                "%,.0f");
        bars(
                g,
                "steady client CPU s per million records, JIT compiler threads left out (median; window-count: first write -> all visible)",
                names,
                cpus,
                null,
                cpuTop,
                row,
                new Color(0xdc3912),
                "%.2f");
        double[] p99 = timed.stream().mapToDouble(n -> latency(n)[1]).toArray();
        double[] p50 = timed.stream().mapToDouble(n -> latency(n)[0]).toArray();
        bars(
                g,
                "latency ms, record timestamp -> visible to read_committed: p99 (light) and p50 (dark)",
                timed,
                p99,
                p50,
                latencyTop,
                row,
                new Color(0x109618),
                "%,.0f");
        g.dispose();
        ImageIO.write(image, "png", file);
    }

    private static void bars(
            Graphics2D g,
            String title,
            List<String> names,
            double[] values,
            double[] inner,
            int top,
            int row,
            Color color,
            String format) {
        g.setColor(Color.BLACK);
        g.drawString(title, 20, top + 14);
        double max = Arrays.stream(values).filter(v -> !Double.isNaN(v)).max().orElse(1);
        for (int i = 0; i < names.size(); i++) {
            int y = top + 24 + i * row;
            int length = (int) (640 * values[i] / max);
            g.setColor(Color.BLACK);
            g.drawString(names.get(i), 20, y + 13);
            g.setColor(inner == null ? color : color.brighter().brighter());
            g.fillRect(160, y, Math.max(1, length), row - 5);
            String label = String.format(Locale.ROOT, format, values[i]);
            if (inner != null) {
                int innerLength = (int) (640 * inner[i] / max);
                g.setColor(color.darker());
                g.fillRect(160, y, Math.max(1, innerLength), row - 5);
                label = String.format(Locale.ROOT, format + " / " + format, inner[i], values[i]);
            }
            g.setColor(Color.BLACK);
            g.drawString(label, 170 + length, y + 13);
        }
    }
}
