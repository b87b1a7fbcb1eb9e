package io.kfp.common.testing;

import io.kfp.common.entry.JobEntryPoint;
import io.kfp.common.entry.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A job's {@code main} run in-process with its output captured, for {@code --help} and bad-option
 * tests. It must not reach the broker: the preflight fails the test if it tries.
 */
public record CapturedRun(int exitCode, String out, String err) {

    public static CapturedRun of(JobSpec spec, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                new JobEntryPoint(
                                Map.of(),
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8),
                                (props, timeout) -> {
                                    throw new AssertionError("unexpected broker contact");
                                })
                        .run(spec, args);
        return new CapturedRun(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
