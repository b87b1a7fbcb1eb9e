package io.kfp.ops.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.entry.JobProvider;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Job modules are the pom's modules with a provider; a provider that is none is named. */
class JobModulesTest {

    @TempDir Path dir;

    @Test
    void aJobModuleIsOneWithAProviderAndItsNameDropsJob() throws Exception {
        Files.writeString(
                dir.resolve("pom.xml"),
                "<project><modules><module>common</module><module>orders-job</module>"
                        + "<module>fraud</module></modules></project>");
        Files.createDirectories(dir.resolve("common/src/main/resources"));
        for (String module : new String[] {"orders-job", "fraud"}) {
            Path file =
                    dir.resolve(module)
                            .resolve("src/main/resources")
                            .resolve(JobProvider.SERVICE_FILE);
            Files.createDirectories(file.getParent());
            Files.writeString(file, "com.example.Job$Provider\n");
        }
        assertThat(JobModules.of(dir))
                .containsExactly(
                        java.util.Map.entry("orders", "orders-job"),
                        java.util.Map.entry("fraud", "fraud"));
        assertThatThrownBy(() -> JobModules.of(dir.resolve("nowhere")))
                .hasMessageStartingWith("no " + dir.resolve("nowhere/pom.xml"));
    }

    @Test
    void aJarWhoseProviderIsNotAJobProviderIsReportedWithTheFix() throws Exception {
        Path jar = dir.resolve("bad-job.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry(JobProvider.SERVICE_FILE));
            out.write("java.lang.String\n".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        assertThatThrownBy(() -> JobModules.load(jar, getClass().getClassLoader()))
                .isInstanceOf(JobModules.NotLoadable.class)
                .hasMessageContaining(
                        "java.lang.String (named in "
                                + JobProvider.SERVICE_FILE
                                + ") must be a public class implementing "
                                + JobProvider.class.getName());

        Path empty = dir.resolve("empty-job.jar");
        try (OutputStream out = new JarOutputStream(Files.newOutputStream(empty))) {
            // no service file
        }
        assertThatThrownBy(() -> JobModules.load(empty, getClass().getClassLoader()))
                .hasMessage(
                        empty
                                + " has no "
                                + JobProvider.SERVICE_FILE
                                + ": rebuild it (kfp build).");
    }
}
