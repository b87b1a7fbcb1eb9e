package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpSettings;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jars kfp keeps by version: from the build or given, and what retention lets go. */
class JobJarsTest {

    static KfpSettings settings(Path run) {
        return KfpSettings.from(
                Map.of("KFP_RUN_DIR", run.toString()),
                JobSubmitterTest.HOME,
                JobSubmitterTest.CALLER);
    }

    static Path jar(Path file, String mainClass) throws Exception {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file);
                JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
        return file;
    }

    @Test
    void aGivenJarIsKeptUnderItsNameAndContentIfItIsTheJobs(@TempDir Path run) throws Exception {
        Path built = jar(run.resolve("build/relay-job-0.1.0.jar"), "io.kfp.relay.RelayJob");
        DeployedJob job = new DeployedJob("relay", "relay-job", built, TestJobs.of("relay").spec());
        JobJars jars = new JobJars(settings(run));

        Path release = jar(run.resolve("releases/relay-job-0.0.9.jar"), "io.kfp.relay.RelayJob");
        JobJars.Version kept = jars.keep(job, release);
        assertThat(kept.name()).matches("relay-job-0\\.0\\.9\\+sha-[0-9a-f]{10}");
        assertThat(kept.jar())
                .hasSameBinaryContentAs(release)
                .startsWith(run.resolve("jars/relay"));

        Path other = jar(run.resolve("releases/sink-job.jar"), "io.kfp.sink.SinkJob");
        assertThatThrownBy(() -> jars.keep(job, other))
                .hasMessage(
                        "--jar "
                                + other
                                + " is no jar of relay: its Main-Class is io.kfp.sink.SinkJob,"
                                + " relay-job's is io.kfp.relay.RelayJob.");
        assertThatThrownBy(() -> jars.keep(job, run.resolve("nothing.jar")))
                .hasMessage("--jar " + run.resolve("nothing.jar") + ": no such file.");
    }

    @Test
    void forgettingSavepointsGoneFromTheStoreDeletesJarsNoStateOrRunNeeds(@TempDir Path run)
            throws Exception {
        KfpSettings settings = settings(run);
        DeployedJob job = TestJobs.of("relay");
        JobJars jars = new JobJars(settings);
        Path dir = run.resolve("jars/relay");
        Files.createDirectories(dir);
        for (String v : List.of("v1", "v2", "v3")) {
            Files.writeString(dir.resolve(v + ".jar"), v);
        }
        jars.markRunning(job, new JobJars.Version("v1", dir.resolve("v1.jar")), List.of());
        jars.recordSavepoint(job, "/s/savepoint-a", "stop");
        jars.markRunning(job, new JobJars.Version("v2", dir.resolve("v2.jar")), List.of());
        jars.recordSavepoint(job, "/s/savepoint-b", "upgrade");
        jars.markRunning(job, new JobJars.Version("v3", dir.resolve("v3.jar")), List.of());

        assertThat(jars.forget(job, List.of("/s/savepoint-b", "/c/chk-3"))).containsExactly("v1");
        assertThat(jars.savepointsTaken(job)).containsOnlyKeys("/s/savepoint-b");
        assertThat(dir.resolve("v2.jar")).as("a savepoint of v2 is left").exists();
        assertThat(dir.resolve("v3.jar")).as("v3 runs").exists();
        // Deleted by hand: no longer in the store, so forgotten as well.
        assertThat(jars.forget(job, List.of("/c/chk-3"))).containsExactly("v2");
        assertThat(jars.running(job)).map(r -> r.version().name()).hasValue("v3");
    }
}
