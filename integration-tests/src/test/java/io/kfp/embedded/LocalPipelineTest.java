package io.kfp.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.entry.JobSpec;
import io.kfp.ingest.IngestJob;
import io.kfp.relay.RelayJob;
import io.kfp.sink.SinkJob;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The local pipeline's quiet terminal: one line per job, a status line that stays clear of the
 * records.
 */
class LocalPipelineTest {

    @Test
    void eachJobSaysInOneLineWhatItGuaranteesAndWhatItReadsAndWrites() {
        LocalPipeline.LauncherArgs launcher =
                LocalPipeline.LauncherArgs.parse(new String[] {"--checkpoint.interval", "2 s"});
        Map<JobSpec, List<String>> args =
                LocalPipeline.jobArguments(
                        launcher, "127.0.0.1:9092", 4000, Path.of("target", "lp-test"));

        assertThat(LocalPipeline.summary(IngestJob.SPEC, config(IngestJob.SPEC, args)))
                .isEqualTo("ingest-job: at-least-once, checkpoint every 2 s, typed lines -> lines");
        assertThat(LocalPipeline.summary(RelayJob.SPEC, config(RelayJob.SPEC, args)))
                .isEqualTo("relay-job: exactly-once, checkpoint every 2 s, lines -> relayed");
        assertThat(LocalPipeline.summary(SinkJob.SPEC, config(SinkJob.SPEC, args)))
                .isEqualTo("sink-job: checkpoint every 2 s, relayed -> this console");
    }

    @Test
    void verboseIsALauncherOption() {
        assertThat(LocalPipeline.LauncherArgs.parse(new String[] {"--verbose"}).verbose).isTrue();
        assertThat(LocalPipeline.LauncherArgs.parse(new String[] {"--port", "0"}).verbose)
                .isFalse();
        assertThat(
                        LocalPipeline.LauncherArgs.parse(new String[] {"--verbose", "--port", "0"})
                                .jobOptions)
                .isEmpty();
        Assertions.assertThatThrownBy(
                        () -> LocalPipeline.LauncherArgs.parse(new String[] {"--verbose=false"}))
                .hasMessageContaining("write --verbose alone");
    }

    @Test
    void theStatusLineIsErasedBeforeOutputAndDrawnAgainAfterEachCompleteLine() throws Exception {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        StatusLine line = new StatusLine(terminal, 80);
        line.show("3 lines in");
        line.write(bytes("hello\nwor"));
        line.show("4 lines in"); // mid-line: not drawn into the half-printed record
        line.write(bytes("ld\n"));
        line.beside(stderr).write(bytes("WARN something\n"));
        line.clear();

        assertThat(terminal.toString(StandardCharsets.UTF_8))
                .isEqualTo(
                        "3 lines in"
                                + "\r\033[K"
                                + "hello\nwor"
                                + "ld\n"
                                + "4 lines in"
                                + "\r\033[K"
                                + "4 lines in"
                                + "\r\033[K");
        assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo("WARN something\n");
        assertThat(line.lines())
                .as("complete lines through the stream; stderr's not counted")
                .isEqualTo(2);
    }

    @Test
    void aStatusLineWiderThanTheTerminalIsCutAndNothingIsDrawnAfterClear() throws Exception {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        StatusLine line = new StatusLine(terminal, 10);
        line.show("0123456789abc\nsecond line");
        line.clear();
        line.show("late");
        line.write(bytes("bye\n"));
        assertThat(terminal.toString(StandardCharsets.UTF_8))
                .isEqualTo("01234567~" + "\r\033[K" + "bye\n");
    }

    @Test
    void aLineTypedOntoTheStatusLineIsErasedWithIt() throws Exception {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        StatusLine line = new StatusLine(terminal, 80);
        line.show("0 lines in");
        // What the terminal echoes is not ours; Enter is what we see, on stdin.
        InputStream stdin = line.watching(new ByteArrayInputStream(bytes("typed\n")));
        assertThat(stdin.readAllBytes()).isEqualTo(bytes("typed\n"));
        assertThat(terminal.toString(StandardCharsets.UTF_8))
                .isEqualTo("0 lines in" + "\r\033[K\033[1A\r\033[K" + "0 lines in");
    }

    private static Configuration config(JobSpec spec, Map<JobSpec, List<String>> args) {
        ConfigLoader.Loaded loaded =
                ConfigLoader.load(
                        args.get(spec).toArray(String[]::new),
                        Map.of(),
                        spec.defaults(),
                        spec.groups());
        return ConfigValidator.validate(loaded.raw(), spec.groups(), loaded.syntaxProblems());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
