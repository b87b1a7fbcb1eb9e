package io.kfp.deploy;

import io.kfp.deploy.lab.Lab;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The processes kfp starts, each tracked by a PID file under {@code RUN/pid/NAME.pid} and stopped
 * by that PID only. A PID counts as ours only while that process is alive and its command line
 * mentions the run directory, so a PID reused after a reboot is never signalled.
 */
public final class Processes {

    static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final Path run;
    private final UnaryOperator<List<String>> launcher;
    private final PrintStream out;
    private final PrintStream err;

    /** Processes on this machine, tracked under {@code run}. */
    Processes(Path run, PrintStream out, PrintStream err) {
        this(run, command -> command, out, err);
    }

    /**
     * Processes on a host of a topology, each command started as {@code launcher} makes it (e.g.
     * {@code ip netns exec kfp-lab-kafka1 COMMAND}).
     */
    Processes(Path run, UnaryOperator<List<String>> launcher, PrintStream out, PrintStream err) {
        this.run = run;
        this.launcher = launcher;
        this.out = out;
        this.err = err;
    }

    Path pidFile(String name) {
        return run.resolve("pid").resolve(name + ".pid");
    }

    /** The PID of {@code name} if it is running and ours. */
    public OptionalLong running(String name) {
        OptionalLong pid = recorded(name);
        if (pid.isEmpty() || !alive(pid.getAsLong()) || !mentionsRunDir(pid.getAsLong())) {
            return OptionalLong.empty();
        }
        return pid;
    }

    /** The PID in {@code name}'s PID file, if there is one. */
    private OptionalLong recorded(String name) {
        Path file = pidFile(name);
        if (!Files.isRegularFile(file)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(Files.readString(file).trim()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private boolean mentionsRunDir(long pid) {
        Path cmdline = Path.of("/proc", String.valueOf(pid), "cmdline");
        if (!Files.isReadable(cmdline)) {
            return true; // no /proc: trust the PID file, as Flink's own scripts do
        }
        // While a process execs (setsid -> tail, ip netns exec -> java) its command line reads
        // empty or torn ("s") for a moment: look again before calling it someone else's. A PID
        // reused by another process costs this second, once.
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        try {
            while (true) {
                String line =
                        new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8)
                                .replace('\0', ' ');
                if (line.contains(run.toString())) {
                    return true;
                }
                if (System.nanoTime() > deadline || !alive(pid)) {
                    return false;
                }
                sleep(Duration.ofMillis(10));
            }
        } catch (IOException e) {
            return false; // it ended while we looked
        }
    }

    /**
     * Starts {@code command} detached, in a session of its own (setsid: Ctrl-C or a closed terminal
     * of the kfp that started it does not reach it), stdout and stderr to {@code output}, and
     * records its PID. Does nothing but say so if {@code name} is already running.
     */
    public void start(String name, Path output, List<String> command, Path workDir) {
        start(name, output, command, workDir, Map.of());
    }

    /** As {@link #start(String, Path, List, Path)}, with {@code environment} added to kfp's own. */
    public void start(
            String name,
            Path output,
            List<String> command,
            Path workDir,
            Map<String, String> environment) {
        OptionalLong existing = running(name);
        if (existing.isPresent()) {
            out.println(name + " already running (pid " + existing.getAsLong() + ")");
            return;
        }
        try {
            Files.createDirectories(pidFile(name).getParent());
            Files.createDirectories(output.getParent());
            Path pidFile = pidFile(name);
            Files.deleteIfExists(pidFile); // a stale one: running(name) said it is not running
            // The process writes its own PID, then execs the command in place: setsid forks when
            // its caller leads a process group (a launcher may make it one), and the PID of what
            // we spawned would then be that of a setsid that has already exited.
            List<String> detached =
                    new ArrayList<>(
                            List.of(
                                    "setsid",
                                    "sh",
                                    "-c",
                                    "echo $$ > \"$0\" && exec \"$@\"",
                                    pidFile.toString()));
            detached.addAll(command);
            ProcessBuilder builder = new ProcessBuilder(launcher.apply(detached));
            builder.environment().putAll(environment);
            Process process =
                    builder.directory(workDir.toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
                            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                            .start();
            long pid = awaitOwnPid(name, process);
            // Until the command is exec'ed, the PID's command line is the shell's, and
            // running(name) would not know it. Started means tracked.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (alive(pid) && !mentionsRunDir(pid) && System.nanoTime() < deadline) {
                sleep(Duration.ofMillis(5));
            }
            out.println("started " + name + " (pid " + pid + ")");
        } catch (IOException e) {
            throw new KfpException(
                    "could not start " + name + ": " + e.getMessage(), KfpException.FAILED, e);
        }
    }

    /**
     * The PID the started process wrote into its PID file. If none comes within 10 s (the launcher
     * or the shell failed), what was spawned is stopped and the start fails: never a process
     * running that nothing tracks.
     */
    private long awaitOwnPid(String name, Process spawned) throws IOException {
        Path pidFile = pidFile(name);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            if (Files.exists(pidFile)) {
                String text = Files.readString(pidFile);
                if (text.endsWith("\n")) {
                    return Long.parseLong(text.trim());
                }
            }
            if (System.nanoTime() > deadline) {
                spawned.destroyForcibly();
                throw new IOException(
                        "it wrote no PID to " + pidFile + " within 10 s (see its output)");
            }
            sleep(Duration.ofMillis(5));
        }
    }

    /**
     * Starts a server (unless it runs already) and waits until it answers on {@code address:port}:
     * what kfp does for every broker, store and coordinator it runs.
     */
    public void startAndAwait(
            String name,
            String what,
            Path output,
            List<String> command,
            Path workDir,
            String address,
            int port) {
        start(name, output, command, workDir);
        awaitPort(address, port, what, name, output, Duration.ofSeconds(60));
    }

    /** {@code LABEL: running (pid N), DETAIL} or {@code LABEL: stopped}: one line of kfp status. */
    public String describe(String name, String label, String detail) {
        OptionalLong pid = running(name);
        return pid.isPresent()
                ? label + ": running (pid " + pid.getAsLong() + "), " + detail
                : label + ": stopped";
    }

    /**
     * SIGKILL at once, as a crash would: the fault tests' kill -9. Returns whether it was running.
     */
    public boolean kill(String name) {
        OptionalLong pid = running(name);
        if (pid.isEmpty()) {
            return false;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid.getAsLong());
        if (handle.isEmpty()) {
            return false;
        }
        ProcessHandle process = handle.get();
        process.destroyForcibly();
        try {
            process.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new KfpException(
                    "kill -9 of "
                            + name
                            + " (pid "
                            + pid.getAsLong()
                            + ") did not end it within 30 s",
                    KfpException.FAILED,
                    e);
        }
        out.println("killed " + name + " (pid " + pid.getAsLong() + ") with SIGKILL");
        return true;
    }

    /** SIGTERM, then SIGKILL after {@link #STOP_GRACE}; only the recorded PID. */
    public void stop(String name) {
        stop(name, STOP_GRACE);
    }

    /** SIGTERM, then SIGKILL after {@code grace}; only the recorded PID. */
    public void stop(String name, Duration grace) {
        OptionalLong pid = running(name);
        try {
            if (pid.isEmpty()) {
                Files.deleteIfExists(pidFile(name));
                return;
            }
            Optional<ProcessHandle> handle = ProcessHandle.of(pid.getAsLong());
            if (handle.isEmpty()) {
                Files.deleteIfExists(pidFile(name)); // it ended just now
                return;
            }
            ProcessHandle process = handle.get();
            process.destroy();
            long deadline = System.nanoTime() + grace.toNanos();
            while (process.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (process.isAlive()) {
                process.destroyForcibly();
                Files.deleteIfExists(pidFile(name));
                out.println(
                        "killed "
                                + name
                                + " (pid "
                                + pid.getAsLong()
                                + ") after "
                                + grace.toSeconds()
                                + " s");
            } else {
                Files.deleteIfExists(pidFile(name));
                out.println("stopped " + name + " (pid " + pid.getAsLong() + ")");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted while stopping " + name, KfpException.FAILED, e);
        }
    }

    /**
     * The names of the PID files that start with {@code prefix}, in numeric order (taskmanager-2
     * before -10).
     */
    public List<String> tracked(String prefix) {
        Path dir = run.resolve("pid");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(f -> f.startsWith(prefix) && f.endsWith(".pid"))
                    .map(f -> f.substring(0, f.length() - ".pid".length()))
                    .sorted(
                            Comparator.comparingInt((String n) -> n.length())
                                    .thenComparing(Comparator.naturalOrder()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until {@code port} on 127.0.0.1 answers. Fails at once, with the last lines of its
     * output, if {@code name} exits first; after {@code timeout} with where to look.
     */
    public void awaitPort(int port, String what, String name, Path output, Duration timeout) {
        awaitPort("127.0.0.1", port, what, name, output, timeout);
    }

    public void awaitPort(
            String address, int port, String what, String name, Path output, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!portOpen(address, port)) {
            // Whether the PID just started is still alive, not running(name): while the launcher
            // execs (ip netns exec -> setsid -> java) its command line can read empty for a moment,
            // and a lab run took a starting S3Proxy for one that had exited.
            OptionalLong started = recorded(name);
            if (started.isEmpty() || !alive(started.getAsLong())) {
                tail(output, 20).forEach(err::println);
                throw new KfpException(
                        what + " exited while starting; the lines above are from " + output + ".");
            }
            if (System.nanoTime() > deadline) {
                throw new KfpException(
                        what
                                + " did not open port "
                                + port
                                + " within "
                                + timeout.toSeconds()
                                + " s; see "
                                + output
                                + ", then 'kfp cluster stop' / 'kfp kafka stop'.");
            }
            sleep(Duration.ofMillis(100));
        }
    }

    public static boolean portOpen(int port) {
        return portOpen("127.0.0.1", port);
    }

    /**
     * Whether {@code address:port} accepts a connection; a lab address only from inside the lab.
     */
    public static boolean portOpen(String address, int port) {
        if (!address.startsWith("127.")) {
            Lab.requireInside(address);
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Refuses to start next to something else on our port: it would look like us. */
    public static void requireFreePort(int port, String variable) {
        if (portOpen(port)) {
            throw new KfpException(
                    "port "
                            + port
                            + " is in use by another process; stop it, or set "
                            + variable
                            + " to a free port.");
        }
    }

    public static List<String> tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return all.subList(Math.max(0, all.size() - lines), all.size());
        } catch (IOException e) {
            return List.of("(" + file + " cannot be read: " + e.getMessage() + ")");
        }
    }

    /**
     * {@code action} on every item at the same time, one thread each, returning when all are done
     * (the first failure is rethrown). Not a parallel stream: on two cores that runs two at a time,
     * and a Kafka node stopped after the other two waits for a quorum that is gone.
     */
    public static <T> void allAtOnce(List<T> items, Consumer<T> action) {
        List<Thread> threads = new ArrayList<>();
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        for (T item : items) {
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    action.accept(item);
                                } catch (RuntimeException e) {
                                    failure.compareAndSet(null, e);
                                }
                            },
                            "kfp-" + item);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KfpException("interrupted", KfpException.FAILED, e);
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    public static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted", KfpException.FAILED, e);
        }
    }
}
