package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PID-file tracking with real processes: `tail -f` of a file in the run directory, so its command
 * line names it.
 */
class ProcessesTest {

    @TempDir Path run;
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    Processes processes;

    Processes processes() throws Exception {
        if (processes == null) {
            Files.writeString(run.resolve("input"), "");
            processes =
                    new Processes(
                            run, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        }
        return processes;
    }

    List<String> tail() {
        return List.of("tail", "-f", run.resolve("input").toString());
    }

    @AfterEach
    void stopWhatIsLeft() throws Exception {
        if (processes != null) {
            processes.tracked("").forEach(processes::stop);
        }
    }

    @Test
    void allAtOnceRunsEveryItemAtTheSameTimeNotTwoByTwo() {
        // Three nodes that each wait for the other two, as Kafka nodes stopping need their quorum:
        // with a parallel stream on two cores the third would never meet the first two.
        CyclicBarrier allThree = new CyclicBarrier(3);
        Set<String> done = ConcurrentHashMap.newKeySet();
        Processes.allAtOnce(
                List.of("kafka1", "kafka2", "kafka3"),
                node -> {
                    try {
                        allThree.await(1, TimeUnit.MINUTES);
                    } catch (Exception e) {
                        throw new IllegalStateException(node + " waited alone", e);
                    }
                    done.add(node);
                });
        assertThat(done).containsExactlyInAnyOrder("kafka1", "kafka2", "kafka3");
    }

    @Test
    void startsDetachedTracksByPidAndStopsByPid() throws Exception {
        Processes p = processes();
        p.start("worker-1", run.resolve("log/worker-1.out"), tail(), run);
        OptionalLong pid = p.running("worker-1");
        assertThat(pid).isPresent();
        assertThat(Files.readString(p.pidFile("worker-1")).trim())
                .isEqualTo(String.valueOf(pid.getAsLong()));
        ProcessHandle process = ProcessHandle.of(pid.getAsLong()).orElseThrow();
        // The recorded PID becomes tail itself.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!process.info().command().orElse("").endsWith("tail")
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(process.info().command())
                .hasValueSatisfying(c -> assertThat(c).endsWith("tail"));
        assertThat(process.isAlive()).isTrue();

        p.start("worker-1", run.resolve("log/worker-1.out"), tail(), run);
        assertThat(p.running("worker-1")).as("not started twice").isEqualTo(pid);

        p.stop("worker-1");
        process.onExit().get();
        assertThat(p.running("worker-1")).isEmpty();
        assertThat(p.pidFile("worker-1")).doesNotExist();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(
                        "started worker-1 (pid " + pid.getAsLong() + ")",
                        "worker-1 already running (pid " + pid.getAsLong() + ")",
                        "stopped worker-1 (pid " + pid.getAsLong() + ")");
    }

    @Test
    void aProcessIsStillOursWhileItExecs() throws Exception {
        // A launcher chain (ip netns exec -> setsid -> java) execs several times; in the middle of
        // each exec the kernel shows an empty command line.
        Processes p = processes();
        Path chain = run.resolve("chain.sh");
        Files.writeString(
                chain,
                "n=$1\nif [ \"$n\" -gt 0 ]; then exec sh \"$0\" $((n - 1)); fi\n"
                        + "exec tail -f "
                        + run.resolve("input")
                        + "\n");
        p.start(
                "chain",
                run.resolve("log/chain.out"),
                List.of("sh", chain.toString(), "2000"),
                run);
        long pid = Long.parseLong(Files.readString(p.pidFile("chain")).trim());
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
        int looks = 0;
        while (!process.info().command().orElse("").endsWith("tail")) {
            assertThat(p.running("chain")).as("look %d, mid-exec", looks++).hasValue(pid);
        }
        assertThat(looks).as("looked while it execed").isPositive();
        p.stop("chain");
        process.onExit().get();
    }

    @Test
    void aPidThatIsNotOursIsNeverSignalled() throws Exception {
        Processes p = processes();
        Files.createDirectories(run.resolve("pid"));
        // This test's own JVM: alive, but its command line does not mention the run directory.
        long self = ProcessHandle.current().pid();
        Files.writeString(p.pidFile("impostor"), self + "\n");
        assertThat(p.running("impostor")).isEmpty();
        p.stop("impostor");
        assertThat(ProcessHandle.current().isAlive()).isTrue();
        assertThat(p.pidFile("impostor")).as("the stale file is removed").doesNotExist();
        Files.writeString(p.pidFile("garbage"), "not a pid\n");
        assertThat(p.running("garbage")).isEmpty();
    }

    @Test
    void trackedNamesAreInNumericOrder() throws Exception {
        Processes p = processes();
        Files.createDirectories(run.resolve("pid"));
        for (String name :
                List.of("taskmanager-10", "taskmanager-2", "jobmanager", "taskmanager-1")) {
            Files.writeString(p.pidFile(name), "1\n");
        }
        assertThat(p.tracked("taskmanager-"))
                .containsExactly("taskmanager-1", "taskmanager-2", "taskmanager-10");
        for (String name : p.tracked("")) {
            Files.delete(p.pidFile(name)); // PID 1 is not ours: never stopped, just forgotten
        }
    }

    /**
     * A launcher that makes the command a process group leader (here setsid itself): kfp's setsid
     * then forks and the process it spawned exits at once. What runs is tracked all the same, and
     * stopped by its PID.
     */
    @Test
    void aStartIsTrackedByThePidThatRunsWhenSetsidForks() throws Exception {
        processes();
        Processes leader =
                new Processes(
                        run,
                        command -> {
                            List<String> full = new ArrayList<>(List.of("setsid"));
                            full.addAll(command);
                            return full;
                        },
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        System.err);
        leader.start("worker-2", run.resolve("log/worker-2.out"), tail(), run);
        OptionalLong pid = leader.running("worker-2");
        assertThat(pid).as("the forked process, tracked").isPresent();
        assertThat(Files.readString(Path.of("/proc/" + pid.getAsLong() + "/cmdline")))
                .contains("tail");
        ProcessHandle process = ProcessHandle.of(pid.getAsLong()).orElseThrow();
        leader.stop("worker-2");
        process.onExit().get(30, TimeUnit.SECONDS);
        assertThat(leader.running("worker-2")).isEmpty();
    }

    /**
     * A TaskManager's .out file is never rotated: emptied in place while the process runs, it
     * starts again from nothing, not at the old offset with a hole of the old size before it.
     */
    @Test
    void anOutputFileEmptiedInPlaceStaysSmall() throws Exception {
        Processes p = processes();
        Path output = run.resolve("log/printer.out");
        Path go = run.resolve("go");
        p.start(
                "printer",
                output,
                List.of(
                        "sh",
                        "-c",
                        "for i in $(seq 1000); do echo 0123456789; done;"
                                + " while [ ! -e \"$0/go\" ]; do sleep 0.01; done;"
                                + " echo after; exec tail -f \"$0/go\"",
                        run.toString()),
                run);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (Files.size(output) < 11_000 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(Files.size(output)).isEqualTo(11_000);
        try (FileChannel file = FileChannel.open(output, StandardOpenOption.WRITE)) {
            file.truncate(0);
        }
        Files.createFile(go);
        while (!Files.readString(output).contains("after") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(Files.readString(output)).isEqualTo("after\n");
        p.stop("printer");
    }

    @Test
    void aProcessThatDiesWhileStartingIsReportedWithItsOutput() throws Exception {
        Processes p = processes();
        Path output = run.resolve("log/broken.out");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Processes withErr =
                new Processes(
                        run,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        withErr.start(
                "broken",
                output,
                List.of("sh", "-c", "echo 'Address already in use' " + run + "; exit 3"),
                run);
        int port = freePort();
        assertThatThrownBy(
                        () ->
                                withErr.awaitPort(
                                        port,
                                        "The broken server",
                                        "broken",
                                        output,
                                        Duration.ofSeconds(30)))
                .isInstanceOf(KfpException.class)
                .hasMessage(
                        "The broken server exited while starting; the lines above are from "
                                + output
                                + ".");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Address already in use");
        assertThat(p.running("broken")).isEmpty();
    }

    @Test
    void aPortInUseIsRefusedWithTheVariableToChange() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(
                            () -> Processes.requireFreePort(taken.getLocalPort(), "KFP_REST_PORT"))
                    .hasMessage(
                            "port "
                                    + taken.getLocalPort()
                                    + " is in use by another process; stop it, or set KFP_REST_PORT to a free port.");
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
