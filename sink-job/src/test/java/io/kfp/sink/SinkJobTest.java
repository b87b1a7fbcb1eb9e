package io.kfp.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.console.ConsoleSink;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.testing.CapturedRun;
import io.kfp.common.testing.FullDisk;
import io.kfp.common.testing.ListSource;
import io.kfp.common.testing.MiniClusters;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SinkJobTest {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.withSlots(2);

    /** What the job printed, shared with the TaskManager threads of the MiniCluster. */
    static final ByteArrayOutputStream PRINTED = new ByteArrayOutputStream();

    static OutputStream printed() {
        return new OutputStream() {
            @Override
            public void write(int b) {
                PRINTED.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                PRINTED.write(b, off, len);
            }
        };
    }

    static Configuration config(String... args) {
        List<String> all =
                new ArrayList<>(
                        List.of(
                                "--source.topics",
                                "in",
                                "--job.parallelism",
                                "2",
                                "--checkpoint.dir",
                                "target/checkpoints"));
        all.addAll(List.of(args));
        return SinkJob.SPEC.configuration(all.toArray(String[]::new));
    }

    @Test
    void printsEveryLineOnceAndWhole() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            lines.add("line " + i + " " + "z".repeat(i % 300));
        }
        PRINTED.reset();
        ConsoleSink sink = new ConsoleSink(SinkJobTest::printed, Duration.ofMillis(200));

        Configuration config = config();
        StreamEnvironments.execute(
                config,
                new SinkJob(
                        config,
                        ListSource.of(
                                utf8(lines), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO),
                        sink));

        String[] printed = PRINTED.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(printed).containsExactlyInAnyOrderElementsOf(lines);
    }

    @Test
    void itsWorkflowLetsTheChainedConsoleWriterTakeEachLineWithoutACopy() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        assertThat(env.getConfig().isObjectReuseEnabled()).as("Flink's default").isFalse();
        Configuration config = config();
        new SinkJob(
                        config,
                        ListSource.of(
                                utf8(List.of("a")),
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO),
                        new ConsoleSink(SinkJobTest::printed, Duration.ofMillis(200)))
                .addTo(env);
        assertThat(env.getConfig().isObjectReuseEnabled()).isTrue();
    }

    @Test
    void aJobWhoseStandardOutputFailsFailsAndSaysWhy() {
        ConsoleSink sink =
                new ConsoleSink(
                        () -> new PrintStream(FullDisk.stream(), false, StandardCharsets.UTF_8),
                        Duration.ofMillis(200));
        Configuration config = config("--restart.strategy", "none");
        SinkJob job =
                new SinkJob(
                        config,
                        ListSource.of(
                                utf8(List.of("a", "b")),
                                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO),
                        sink);

        assertThatThrownBy(() -> StreamEnvironments.execute(config, job))
                .rootCause()
                .isInstanceOf(IOException.class)
                .hasMessageContaining("writing to the standard output failed");
    }

    @Test
    void mainAnswersHelpAndRejectsBadOptionsWithExitTwo() {
        CapturedRun help = CapturedRun.of(SinkJob.SPEC, "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out())
                .startsWith("sink-job: ")
                .contains(
                        "--console.print-key  (default: false)",
                        "--console.flush-interval  (default: 200 ms)",
                        "--source.offset-reset  (default: latest)")
                .doesNotContain("--sink.topic");

        CapturedRun bad =
                CapturedRun.of(
                        SinkJob.SPEC,
                        "--source.topics",
                        "in",
                        "--console.print-keys",
                        "--console.separator",
                        "\\n");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err())
                .contains("console.print-keys", "did you mean 'console.print-key'?")
                .contains("console.separator", "line break");
    }

    private static List<byte[]> utf8(List<String> lines) {
        return lines.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
    }
}
