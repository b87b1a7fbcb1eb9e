package io.kfp.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU seconds a JVM's JIT compiler threads have used so far, from {@code /proc/PID/task}: the
 * warm-up a steady state no longer pays. HotSpot names them "C1 CompilerThreadN" and "C2
 * CompilerThreadN" (Linux keeps the first 15 characters). Each thread's name is read once; a
 * sample then reads the directory listing and the compiler threads' stat files only. The case
 * JVMs run with {@code -XX:-UseDynamicNumberOfCompilerThreads}, so no compiler thread exits and
 * takes its CPU time out of the sum.
 */
final class CompilerThreads {

    private final Path tasks;
    /** Thread id -> whether it is a compiler thread. */
    private final Map<String, Boolean> known = new HashMap<>();

    CompilerThreads(long pid) {
        this.tasks = Path.of("/proc", String.valueOf(pid), "task");
    }

    /** Of this JVM. */
    static CompilerThreads self() {
        return new CompilerThreads(ProcessHandle.current().pid());
    }

    /** CPU seconds (user + system) of the compiler threads alive now; 0 once the process is gone. */
    double cpuSeconds() {
        double seconds = 0;
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                String tid = thread.getFileName().toString();
                Boolean compiler = known.get(tid);
                if (compiler == null) {
                    compiler = isCompiler(Files.readString(thread.resolve("comm")).trim());
                    known.put(tid, compiler);
                }
                if (compiler) {
                    seconds += statCpuSeconds(Files.readString(thread.resolve("stat")));
                }
            }
        } catch (NoSuchFileException gone) {
            return seconds; // the process (or a thread of it) ended while being read
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return seconds;
    }

    static boolean isCompiler(String comm) {
        return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
    }

    /** utime + stime of a {@code /proc/.../stat} line, in seconds. */
    static double statCpuSeconds(String stat) {
        // The name, in parentheses, may hold spaces: the fields are counted after its end.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) Harness.CLK_TCK;
    }
}
