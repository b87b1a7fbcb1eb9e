package io.kfp.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobEndpoints;
import io.kfp.common.entry.JobProvider;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.testing.ReadmeOptions;
import io.kfp.ops.jobs.JobModules;
import io.kfp.ops.jobs.JobOwnership;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * What every job module must be to live beside the others, checked in its own build: a README whose
 * options table is its spec's (regenerated with {@code -Dkfp.docs.update=true}); a config for kfp
 * ({@code deploy/conf/jobs/NAME.yaml}) that its spec accepts; no consumer group, transactional-id
 * prefix or output topic shared with another job module as its config has it ({@link
 * JobOwnership}); and a fixed uid on every operator, so that its savepoints stay restorable. A
 * job's test extends it:
 *
 * <pre>{@code
 * class RelayModuleTest extends JobModuleContract {
 *     @Override
 *     protected JobSpec spec() {
 *         return RelayJob.SPEC;
 *     }
 * }
 * }</pre>
 *
 * The other job modules' specs come from their compiled classes; one that is not compiled yet
 * (Maven builds modules side by side) is left out here and checks this one in its own build, as its
 * test runs after this module's classes exist.
 */
public abstract class JobModuleContract {

    /** The job under test. */
    protected abstract JobSpec spec();

    /** The module under test: surefire runs in it. */
    static final Path MODULE = Path.of("").toAbsolutePath();

    static final Path REPO = MODULE.getParent();

    @Test
    void kfpHasAConfigForItThatItsSpecAccepts() {
        Path file = config(name());
        assertThat(file)
                .as("the job's settings for kfp (kfp submit %s reads them)", name())
                .isRegularFile();
        assertThat(spec().configuration("--config", file.toString())).isNotNull();
    }

    @Test
    void sharesNoGroupPrefixOrTopicWithAnotherJob() {
        String name = name();
        JobOwnership.Declared self =
                new JobOwnership.Declared(name, endpoints(spec(), config(name)));
        List<JobOwnership.Declared> others = new ArrayList<>();
        for (Map.Entry<String, String> other : JobModules.of(REPO).entrySet()) {
            Path classes = REPO.resolve(other.getValue()).resolve("target/classes");
            if (other.getKey().equals(name) || !Files.isRegularFile(config(other.getKey()))) {
                continue;
            }
            try {
                JobSpec spec = JobModules.load(classes, getClass().getClassLoader());
                others.add(
                        new JobOwnership.Declared(
                                other.getKey(), endpoints(spec, config(other.getKey()))));
            } catch (RuntimeException | LinkageError notCompiledYet) {
                System.out.printf(
                        "%s: %s left out (its classes: %s)%n",
                        name, other.getKey(), notCompiledYet);
            }
        }
        assertThat(JobOwnership.conflicts(self, others)).isEmpty();
    }

    @Test
    void everyOperatorHasAFixedUid() {
        Configuration config = spec().configuration("--config", config(name()).toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        spec().workflow(config).addTo(env);
        List<String> withoutUid = new ArrayList<>();
        for (StreamNode node : env.getStreamGraph().getStreamNodes()) {
            if (node.getTransformationUID() == null) {
                withoutUid.add(node.getOperatorName());
            }
        }
        assertThat(withoutUid)
                .as(
                        "operators without .uid(\"...\"): Flink would derive their state's id from"
                                + " the graph, and a savepoint would not restore after a change")
                .isEmpty();
    }

    @Test
    void itsReadmeListsEveryOption() throws Exception {
        ReadmeOptions.assertUpToDate(spec(), MODULE.resolve("README.md"));
    }

    /** This module's job name: its directory without {@code -job}. */
    private String name() {
        return JobModules.of(REPO).entrySet().stream()
                .filter(e -> e.getValue().equals(MODULE.getFileName().toString()))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(
                        () ->
                                new AssertionError(
                                        MODULE
                                                + " is no job module of "
                                                + REPO.resolve("pom.xml")
                                                + ": list it there and name its JobProvider in"
                                                + " src/main/resources/"
                                                + JobProvider.SERVICE_FILE));
    }

    private static Path config(String job) {
        return REPO.resolve("deploy/conf/jobs").resolve(job + ".yaml");
    }

    private static JobEndpoints endpoints(JobSpec spec, Path config) {
        return spec.endpoints(spec.configuration("--config", config.toString()));
    }
}
