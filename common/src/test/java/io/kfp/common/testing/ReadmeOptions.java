package io.kfp.common.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.OptionsDoc;
import io.kfp.common.config.OptionsHelp;
import io.kfp.common.entry.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Asserts that a job module's README lists exactly the job's options. On failure, regenerate with
 * {@code mvn -pl <module> test -Dkfp.docs.update=true}.
 */
public final class ReadmeOptions {

    private ReadmeOptions() {}

    public static void assertUpToDate(JobSpec spec, Path readme) throws Exception {
        String wanted =
                OptionsDoc.syncOrCompare(
                        readme, OptionsHelp.markdown(spec.groups(), spec.defaults()));
        assertThat(Files.readString(readme, StandardCharsets.UTF_8))
                .as(readme + " options table; regenerate with -Dkfp.docs.update=true")
                .isEqualTo(wanted);
    }
}
