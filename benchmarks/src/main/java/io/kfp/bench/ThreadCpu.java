package io.kfp.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The CPU seconds a JVM's threads have used so far, summed by kind of thread, from {@code
 * /proc/PID/task}: where a case's CPU per record goes. The JIT compilers' share is warm-up, which a
 * steady state no longer pays (the CPU targets leave it out); the others say which side of a Flink
 * source or a Kafka client costs what - a Flink source's fetcher thread beside its task thread,
 * against a console client's one thread. Threads are told apart by the name Linux keeps (the first
 * 15 characters), which HotSpot sets when a thread starts running: until then a new thread shows
 * its creator's name, so a thread in no group is looked at again while it is young. A sample reads
 * the directory listing and the stat files of the grouped threads only, and keeps each thread's
 * last reading, so a thread that ends keeps the CPU it was last seen with and the sums never go
 * down.
 */
final class ThreadCpu {

    /**
     * The kinds of thread counted; what is in none of them (task threads, main, ...) is the rest of
     * the process's CPU.
     */
    enum Group {
        /** HotSpot's "C1 CompilerThreadN" and "C2 CompilerThreadN". */
        JIT("JIT", "C1 CompilerThre", "C2 CompilerThre"),
        /**
         * G1's workers and concurrent threads, and the VM thread that runs its pauses (and the
         * other safepoint operations).
         */
        GC("GC, safepoints", "GC Thread#", "G1 ", "VM Thread"),
        /**
         * Flink's "Source Data Fetcher for ..." threads: the connector's poll, or our socket reads.
         */
        FETCHER("source fetcher", "Source Data Fet"),
        /**
         * Kafka's producer network threads ("kafka-producer-network-thread | ...") and consumer
         * heartbeat threads.
         */
        CLIENT_IO("Kafka client I/O", "kafka-producer-", "kafka-coordinat");

        final String label;
        private final List<String> prefixes;

        Group(String label, String... prefixes) {
            this.label = label;
            this.prefixes = List.of(prefixes);
        }

        /** The group of a thread by its name as Linux keeps it, or null. */
        static Group of(String comm) {
            for (Group group : values()) {
                if (group.prefixes.stream().anyMatch(comm::startsWith)) {
                    return group;
                }
            }
            return null;
        }
    }

    /**
     * How long a thread in no group is still looked at again: HotSpot names a thread within moments
     * of its start.
     */
    static final long YOUNG_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Group[] GROUPS = Group.values();

    /**
     * A thread seen: its group (null: none, so far), when first seen, its CPU seconds when last
     * read.
     */
    private static final class Seen {
        Group group;
        final long firstNanos;
        double cpu;

        Seen(long firstNanos) {
            this.firstNanos = firstNanos;
        }
    }

    private final Path tasks;

    /** Thread id -> what is known of it, ended threads included. */
    private final Map<String, Seen> seen = new HashMap<>();

    /** Per group: the CPU of threads whose id a new thread took over. */
    private final double[] retired = new double[GROUPS.length];

    ThreadCpu(long pid) {
        this.tasks = Path.of("/proc", String.valueOf(pid), "task");
    }

    /** Of this JVM. */
    static ThreadCpu self() {
        return new ThreadCpu(ProcessHandle.current().pid());
    }

    /** All zero: a process before its first sample. */
    static double[] none() {
        return new double[GROUPS.length];
    }

    /**
     * CPU seconds (user + system) of each group's threads so far, indexed by {@link
     * Group#ordinal()}: the threads alive now as read now, the ended ones as last read. Never less
     * than the sample before; once the process is gone, the last readings.
     */
    double[] cpuSeconds() {
        long now = System.nanoTime();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                read(thread, now);
            }
        } catch (NoSuchFileException gone) {
            // the process ended: what was read so far stands
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        double[] seconds = retired.clone();
        for (Seen thread : seen.values()) {
            if (thread.group != null) {
                seconds[thread.group.ordinal()] += thread.cpu;
            }
        }
        return seconds;
    }

    private void read(Path thread, long now) {
        String tid = thread.getFileName().toString();
        Seen known = seen.computeIfAbsent(tid, id -> new Seen(now));
        try {
            if (known.group == null && now - known.firstNanos <= YOUNG_NANOS) {
                known.group = Group.of(Files.readString(thread.resolve("comm")).trim());
            }
            if (known.group != null) {
                double cpu = statCpuSeconds(Files.readString(thread.resolve("stat")));
                if (cpu < known.cpu) {
                    // A new thread with the id of one that ended (ids wrap at pid_max): keep the
                    // old one's
                    // CPU, and look at the new one afresh.
                    retired[known.group.ordinal()] += known.cpu;
                    seen.remove(tid);
                    read(thread, now);
                    return;
                }
                known.cpu = cpu;
            }
        } catch (IOException ended) {
            // The thread ended while being read ("no such file" or "no such process"): its last
            // reading stands.
        }
    }

    /** utime + stime of a {@code /proc/.../stat} line, in seconds. */
    static double statCpuSeconds(String stat) {
        // The name, in parentheses, may hold spaces: the fields are counted after its end.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) Harness.CLK_TCK;
    }
}
