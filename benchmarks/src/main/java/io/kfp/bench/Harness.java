package io.kfp.bench;

import io.kfp.embedded.EmbeddedKafka;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Runs every case against one broker (embedded, or {@code --bootstrap}), cases alternating, each
 * in a JVM of its own with the same heap, and writes benchmarks/results/relay.{md,csv,png}.
 *
 * <p>Per run: records/s from the first output record to done and from launch to done, client CPU
 * seconds per million records and peak RSS (from /proc), broker CPU seconds (this JVM, which hosts
 * the embedded broker). Each run's output is read back: exactly RECORDS distinct sequence numbers,
 * no duplicates, or the run fails.
 *
 * <p>Usage: {@code benchmarks/run relay [--quick] [--records N] [--rounds N] [--bootstrap H:P]}.
 */
public final class Harness {

    static final List<String> CASES = List.of(
            "producer", "ingest-job", "console-producer", "copy-loop", "txn-loop-5s", "streams-alo", "streams-eos-100ms", "streams-eos-5s",
            "relay-alo-5s", "relay-eos-5s", "relay-alo-1s", "relay-eos-1s");
    static final long CLK_TCK = 100;

    record Run(String name, int round, double recordsPerSecond, double launchToDonePerSecond,
               double cpuSecondsPerMillion, double brokerCpuSeconds, long peakRssMb) {}

    private Harness() {}

    public static void main(String[] args) throws Exception {
        long records = 10_000_000;
        int rounds = 3;
        String bootstrap = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> records = 2_000_000;
                case "--records" -> records = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--bootstrap" -> bootstrap = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        EmbeddedKafka kafka = null;
        if (bootstrap == null) {
            kafka = EmbeddedKafka.start(Path.of("benchmarks", "target", "kafka"));
            bootstrap = kafka.bootstrapServers();
        }
        try {
            run(bootstrap, kafka, records, rounds);
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    static void run(String bootstrap, EmbeddedKafka kafka, long records, int rounds) throws Exception {
        String input = "bench-in";
        createTopics(bootstrap, kafka, input);
        System.out.printf("producing %,d input records...%n", records);
        RelayCases.produce(bootstrap, input, records);

        List<Run> runs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String name : CASES) {
                String output = "bench-" + name + "-" + round;
                createTopics(bootstrap, kafka, output);
                Run run = runCase(name, round, bootstrap, input, output, records);
                runs.add(run);
                System.out.printf("  %-14s round %d: %,10.0f records/s, %.2f CPU s per M records, broker %.1f CPU s, peak RSS %d MB%n",
                        name, round, run.recordsPerSecond, run.cpuSecondsPerMillion, run.brokerCpuSeconds, run.peakRssMb);
            }
        }
        write(runs, records, rounds);
    }

    static void createTopics(String bootstrap, EmbeddedKafka kafka, String topic) throws Exception {
        if (kafka != null) {
            kafka.createTopics(4, topic);
            return;
        }
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    static Run runCase(String name, int round, String bootstrap, String input, String output, long records) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx1g",
                "-Dlog4j2.configurationFile=classpath:kfp-log4j2.properties",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), RelayCases.class.getName(),
                name, bootstrap, input, output, String.valueOf(records)));
        Path log = Path.of("benchmarks", "target", "case-" + output + ".log");
        Files.createDirectories(log.getParent());
        double brokerCpuBefore = processCpuSeconds();
        long launched = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long pid = process.pid();
        double cpu = 0;
        long rssKb = 0;
        long firstOutput = 0;
        while (process.isAlive()) {
            double[] stat = procStat(pid);
            if (stat != null) {
                cpu = Math.max(cpu, stat[0]);
                rssKb = Math.max(rssKb, (long) stat[1]);
            }
            if (firstOutput == 0 && endOffsetSum(bootstrap, output) > 0) {
                firstOutput = System.nanoTime();
            }
            Thread.sleep(100);
        }
        long done = System.nanoTime();
        if (process.exitValue() != 0) {
            throw new IllegalStateException(name + " failed (exit " + process.exitValue() + "); see " + log);
        }
        double brokerCpu = processCpuSeconds() - brokerCpuBefore;
        verify(name, bootstrap, output, records);
        double fromFirst = records / ((done - (firstOutput == 0 ? launched : firstOutput)) / 1e9);
        double fromLaunch = records / ((done - launched) / 1e9);
        return new Run(name, round, fromFirst, fromLaunch, cpu / (records / 1e6), brokerCpu, rssKb / 1024);
    }

    /** Output read with read_committed: exactly the input's sequence numbers, each once. */
    static void verify(String name, String bootstrap, String output, long records) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("isolation.level", "read_committed");
        props.setProperty("max.poll.records", "10000");
        BitSet seen = new BitSet((int) records);
        long total = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(output).forEach(p -> partitions.add(new TopicPartition(output, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    int seq = Integer.parseInt(new String(r.value(), 0, 12, StandardCharsets.US_ASCII));
                    if (seen.get(seq)) {
                        throw new IllegalStateException(name + ": sequence number " + seq + " is in " + output + " twice");
                    }
                    seen.set(seq);
                    total++;
                }
            }
        }
        if (total != records || seen.cardinality() != records) {
            throw new IllegalStateException(name + ": " + output + " holds " + total + " records, expected " + records);
        }
    }

    /** Records written to the topic so far, committed or not: shows the first output. */
    static long endOffsetSum(String bootstrap, String topic) throws Exception {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(props)) {
            Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
            for (int p = 0; p < 4; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            return admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                    .all().get(10, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    /** [CPU seconds (user+system), RSS high-water mark in KiB] of a process, or null if gone. */
    static double[] procStat(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) CLK_TCK;
            long hwm = 0;
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
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
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    static void write(List<Run> runs, long records, int rounds) throws Exception {
        Path dir = Path.of("benchmarks", "results");
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder("case,round,records_per_s,launch_to_done_records_per_s,client_cpu_s_per_million,broker_cpu_s,peak_rss_mb\n");
        runs.forEach(r -> csv.append(String.format("%s,%d,%.0f,%.0f,%.3f,%.2f,%d%n", r.name, r.round, r.recordsPerSecond,
                r.launchToDonePerSecond, r.cpuSecondsPerMillion, r.brokerCpuSeconds, r.peakRssMb)));
        Files.writeString(dir.resolve("relay.csv"), csv);

        Map<String, List<Run>> byCase = new LinkedHashMap<>();
        runs.forEach(r -> byCase.computeIfAbsent(r.name, n -> new ArrayList<>()).add(r));
        double loop = median(byCase.get("copy-loop").stream().map(Run::recordsPerSecond).toList());
        double loopCpu = median(byCase.get("copy-loop").stream().map(Run::cpuSecondsPerMillion).toList());
        StringBuilder md = new StringBuilder(String.format(
                "%,d records of 100 bytes (8-byte keys), 4 partitions, %d rounds, cases alternating, each in its own JVM (-Xmx1g);"
                        + " median [min, max]; ratios to the plain copy loop's median.%n%n", records, rounds));
        md.append("| case | records/s (first output -> done) | launch -> done | client CPU s / M records | broker CPU s | peak RSS MB | x loop (rate) | x loop (CPU) |\n");
        md.append("|---|---|---|---|---|---|---|---|\n");
        byCase.forEach((name, list) -> {
            List<Double> rate = list.stream().map(Run::recordsPerSecond).toList();
            List<Double> cpu = list.stream().map(Run::cpuSecondsPerMillion).toList();
            md.append(String.format("| %s | %,.0f [%,.0f, %,.0f] | %,.0f | %.2f [%.2f, %.2f] | %.1f | %d | %.2f | %.2f |%n", name,
                    median(rate), rate.stream().mapToDouble(d -> d).min().orElse(0), rate.stream().mapToDouble(d -> d).max().orElse(0),
                    median(list.stream().map(Run::launchToDonePerSecond).toList()),
                    median(cpu), cpu.stream().mapToDouble(d -> d).min().orElse(0), cpu.stream().mapToDouble(d -> d).max().orElse(0),
                    median(list.stream().map(Run::brokerCpuSeconds).toList()),
                    list.stream().mapToLong(Run::peakRssMb).max().orElse(0),
                    median(rate) / loop, median(cpu) / loopCpu));
        });
        Files.writeString(dir.resolve("relay.md"), md);
        chart(byCase, dir.resolve("relay.png").toFile());
        System.out.println();
        System.out.print(md);
    }

    /** Two bar charts: median records/s and median client CPU seconds per million records. */
    static void chart(Map<String, List<Run>> byCase, File file) throws Exception {
        int width = 1000;
        int height = 520;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        List<String> names = new ArrayList<>(byCase.keySet());
        double[] rates = names.stream().mapToDouble(n -> median(byCase.get(n).stream().map(Run::recordsPerSecond).toList())).toArray();
        double[] cpus = names.stream().mapToDouble(n -> median(byCase.get(n).stream().map(Run::cpuSecondsPerMillion).toList())).toArray();
        bars(g, "records/s (median)", names, rates, 20, new Color(0x3366cc), "%,.0f");
        bars(g, "client CPU s per million records (median)", names, cpus, 270, new Color(0xdc3912), "%.2f");
        g.dispose();
        ImageIO.write(image, "png", file);
    }

    private static void bars(Graphics2D g, String title, List<String> names, double[] values, int top, Color color, String format) {
        g.setColor(Color.BLACK);
        g.drawString(title, 20, top + 12);
        double max = java.util.Arrays.stream(values).max().orElse(1);
        int barHeight = 24;
        for (int i = 0; i < names.size(); i++) {
            int y = top + 22 + i * (barHeight + 6);
            int length = (int) (600 * values[i] / max);
            g.setColor(Color.BLACK);
            g.drawString(names.get(i), 20, y + 16);
            g.setColor(color);
            g.fillRect(150, y, Math.max(1, length), barHeight);
            g.setColor(Color.BLACK);
            g.drawString(String.format(format, values[i]), 160 + length, y + 16);
        }
    }
}
