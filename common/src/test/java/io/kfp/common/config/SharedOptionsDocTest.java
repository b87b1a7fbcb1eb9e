package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * common/README.md's table of shared options is generated from the declarations. If this fails, run
 * {@code mvn -pl common test -Dtest=SharedOptionsDocTest -Dkfp.docs.update=true}.
 */
class SharedOptionsDocTest {

    @Test
    void readmeTableMatchesTheDeclarations() throws Exception {
        JobSpec everything =
                JobSpec.builder("any-job", "")
                        .owner("tests")
                        .group(SourceOptions.GROUP)
                        .group(KafkaSinkOptions.GROUP)
                        .workflow(c -> env -> {});
        Map<String, String> noJobDefaults = Map.of();
        String generated = OptionsHelp.markdown(everything.groups(), noJobDefaults);
        Path readme = Path.of("README.md");

        String wanted = OptionsDoc.syncOrCompare(readme, generated);

        assertThat(Files.readString(readme, StandardCharsets.UTF_8))
                .as("README.md options table; regenerate with -Dkfp.docs.update=true")
                .isEqualTo(wanted);
        assertThat(generated)
                .contains("| `checkpoint.interval` | `5 s` |", "| `sink.topic` | `none` |");
    }
}
