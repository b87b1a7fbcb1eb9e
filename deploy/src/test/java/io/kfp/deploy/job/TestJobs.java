package io.kfp.deploy.job;

import io.kfp.deploy.KfpSettings;
import java.nio.file.Path;
import java.util.Map;

/** The jobs of this repository, from their built jars, as kfp finds them. */
final class TestJobs {

    /** The deploy module: tests run in it. */
    static final Path HOME = Path.of("").toAbsolutePath();

    static final JobCatalog CATALOG = JobCatalog.of(KfpSettings.from(Map.of(), HOME, HOME));

    private TestJobs() {}

    static DeployedJob of(String name) {
        return CATALOG.job(name);
    }
}
