package io.kfp.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU seconds a JVM's threads have used so far, summed by kind of thread, from {@code
 * /proc/PID/task}: where a case's CPU per record goes. The JIT compilers' share is warm-up, which
 * a steady state no longer pays (the CPU targets leave it out); the others say which side of a
 * Flink source or a Kafka client costs what - a Flink source's fetcher thread beside its task
 * thread, against a console client's one thread. Threads are told apart by the name Linux keeps
 * (the first 15 characters). Each thread's name is read once; a sample then reads the directory
 * listing and the stat files of the grouped threads only. A thread that has ended takes its CPU
 * out of its group's sum: the case JVMs run with {@code -XX:-UseDynamicNumberOfCompilerThreads}
 * so no compiler thread ends, and the other groups' threads live as long as the case.
 */
final class ThreadCpu {

    /** The kinds of thread counted; what is in none of them (task threads, main, ...) is the rest of the process's CPU. */
    enum Group {
        /** HotSpot's "C1 CompilerThreadN" and "C2 CompilerThreadN". */
        JIT("JIT", "C1 CompilerThre", "C2 CompilerThre"),
        /** G1's workers and concurrent threads, and the VM thread that runs its pauses. */
        GC("GC", "GC Thread#", "G1 ", "VM Thread"),
        /** Flink's "Source Data Fetcher for ..." threads: the connector's poll, or our socket reads. */
        FETCHER("source fetcher", "Source Data Fet"),
        /** Kafka's producer network threads ("kafka-producer-network-thread | ...") and consumer heartbeat threads. */
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

    private static final Group[] GROUPS = Group.values();

    private final Path tasks;
    /** Thread id -> its group, or null for the rest. */
    private final Map<String, Group> known = new HashMap<>();

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
     * CPU seconds (user + system) of each group's threads alive now, indexed by {@link
     * Group#ordinal()}; as far as read once the process is gone.
     */
    double[] cpuSeconds() {
        double[] seconds = none();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                String tid = thread.getFileName().toString();
                if (!known.containsKey(tid)) {
                    known.put(tid, Group.of(Files.readString(thread.resolve("comm")).trim()));
                }
                Group group = known.get(tid);
                if (group != null) {
                    seconds[group.ordinal()] += statCpuSeconds(Files.readString(thread.resolve("stat")));
                }
            }
        } catch (NoSuchFileException gone) {
            return seconds; // the process (or a thread of it) ended while being read
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return seconds;
    }

    /** Each group's largest value of the two: CPU time only grows, and a sample may miss a thread that just ended. */
    static double[] max(double[] a, double[] b) {
        double[] max = none();
        for (int i = 0; i < max.length; i++) {
            max[i] = Math.max(a[i], b[i]);
        }
        return max;
    }

    /** utime + stime of a {@code /proc/.../stat} line, in seconds. */
    static double statCpuSeconds(String stat) {
        // The name, in parentheses, may hold spaces: the fields are counted after its end.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) Harness.CLK_TCK;
    }
}
