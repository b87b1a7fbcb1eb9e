package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** How the end-to-end tests run deploy/bin/kfp and other commands. */
public final class Commands {

    private Commands() {}

    public record Result(int exit, String output) {}

    /**
     * Runs {@code command} with only the test's settings in its environment (a developer's
     * FLINK_HOME, KAFKA_BOOTSTRAP or KFP_* must not leak in), output to a file under {@code dir} so
     * a hung process is noticed, and destroyed with its descendants if it does not end in time;
     * fails then. The exit code is the caller's to judge.
     */
    public static Result run(
            List<String> command, Map<String, String> env, Path dir, Duration timeout)
            throws Exception {
        Files.createDirectories(dir);
        Path output = Files.createTempFile(dir, "cmd-", ".out");
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile());
        builder.environment()
                .keySet()
                .removeIf(
                        k ->
                                k.startsWith("KFP_")
                                        || k.equals("FLINK_HOME")
                                        || k.equals("KAFKA_BOOTSTRAP"));
        builder.environment().putAll(env);
        Process process = builder.start();
        boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor();
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        Files.delete(output);
        assertThat(ended)
                .as(String.join(" ", command) + " did not end within " + timeout + "\n" + text)
                .isTrue();
        return new Result(process.exitValue(), text);
    }

    /** {@link #run}, and fails unless it exits 0. */
    static String succeed(List<String> command, Map<String, String> env, Path dir, Duration timeout)
            throws Exception {
        Result result = run(command, env, dir, timeout);
        assertThat(result.exit()).as(String.join(" ", command) + "\n" + result.output()).isZero();
        return result.output();
    }
}
