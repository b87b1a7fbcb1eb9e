package io.kfp.relay;

import io.kfp.common.testing.ReadmeOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ReadmeTest {

    @Test
    void readmeListsEveryOption() throws Exception {
        ReadmeOptions.assertUpToDate(RelayJob.SPEC, Path.of("README.md"));
    }
}
