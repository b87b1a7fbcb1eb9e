package io.kfp.common.testing;

import io.kfp.common.config.ConfigLoader;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.entry.JobSpec;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/** A job's configuration loaded and validated from command-line arguments, as its main would. */
public final class TestConfigs {

    private TestConfigs() {}

    public static Configuration validated(JobSpec spec, String... args) {
        ConfigLoader.Loaded loaded = ConfigLoader.load(args, Map.of(), spec.defaults(), spec.groups());
        return ConfigValidator.validate(loaded.raw(), spec.groups(), loaded.syntaxProblems());
    }
}
