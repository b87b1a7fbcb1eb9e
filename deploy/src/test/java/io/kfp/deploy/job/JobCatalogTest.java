package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.entry.JobProvider;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kfp finds every job module of the parent pom and reads its spec from its built jar; and no two of
 * them, as deploy/conf/jobs/ configures them, share a consumer group, a transactional-id prefix or
 * an output topic.
 */
class JobCatalogTest {

    @TempDir Path repo;

    @Test
    void everyJobModuleOfThePomIsFoundWithItsSpec() {
        List<String> names = TestJobs.CATALOG.names();
        assertThat(names).contains("ingest", "relay", "sink").doesNotContain("common", "deploy");
        for (DeployedJob job : TestJobs.CATALOG.all()) {
            assertThat(job.module()).isEqualTo(job.name() + "-job");
            assertThat(job.jar()).isRegularFile();
            assertThat(job.spec().owner()).as(job.name()).isNotBlank();
            assertThat(job.spec().command()).isEqualTo(job.module());
        }
    }

    @Test
    void theReactorBuildsEveryJobBeforeDeploysTests() throws Exception {
        String pom = Files.readString(TestJobs.HOME.resolve("pom.xml"));
        for (String module : JobCatalog.jobModules(TestJobs.HOME.getParent()).values()) {
            assertThat(pom)
                    .as(
                            "deploy/pom.xml depends on the %s jar (classifier job, scope test, as on"
                                    + " relay-job), so that Maven builds it before these tests read it",
                            module)
                    .containsPattern(
                            "<artifactId>"
                                    + module
                                    + "</artifactId>\\s*<version>[^<]+</version>\\s*"
                                    + "<classifier>job</classifier>");
        }
    }

    @Test
    void noTwoJobsShareAGroupAPrefixOrATopic() {
        List<JobOwnership.Declared> jobs = new ArrayList<>();
        for (DeployedJob job : TestJobs.CATALOG.all()) {
            Path config =
                    job.defaultConfig(KfpSettings.from(Map.of(), TestJobs.HOME, TestJobs.HOME));
            assertThat(config)
                    .as(
                            "every job module has its config for kfp in deploy/conf/jobs/"
                                    + job.name()
                                    + ".yaml")
                    .isRegularFile();
            jobs.add(new JobOwnership.Declared(job.name(), job.endpoints(config, Map.of())));
        }
        assertThat(JobOwnership.conflicts(jobs)).isEmpty();
    }

    @Test
    void aJobModuleIsOneWithAProviderAndItsNameDropsJob() throws Exception {
        pom("common", "orders-job", "fraud");
        module("common", null);
        module("orders-job", "com.example.Orders$Provider");
        module("fraud", "com.example.Fraud$Provider");
        assertThat(JobCatalog.jobNames(repo)).containsExactly("orders", "fraud");

        JobCatalog catalog =
                JobCatalog.of(KfpSettings.from(Map.of(), repo.resolve("deploy"), repo));
        assertThatThrownBy(() -> catalog.job("payments"))
                .isInstanceOf(KfpException.class)
                .hasMessageStartingWith("unknown job 'payments': the jobs are orders, fraud");
        assertThatThrownBy(() -> catalog.job("orders"))
                .hasMessageContaining("the orders job is not built (")
                .hasMessageContaining("orders-job/target/orders-job-")
                .hasMessageEndingWith("is missing): run deploy/bin/kfp build.");
    }

    @Test
    void aJarWhoseProviderIsNotAJobProviderIsReportedWithTheFix() throws Exception {
        Path jar = repo.resolve("bad-job.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry(JobProvider.SERVICE_FILE));
            out.write("java.lang.String\n".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        assertThatThrownBy(() -> JobCatalog.spec(jar))
                .isInstanceOf(KfpException.class)
                .hasMessageContaining(
                        "java.lang.String (named in "
                                + JobProvider.SERVICE_FILE
                                + ") must be a public class implementing "
                                + JobProvider.class.getName());

        Path empty = repo.resolve("empty-job.jar");
        try (OutputStream out = new JarOutputStream(Files.newOutputStream(empty))) {
            // no service file
        }
        assertThatThrownBy(() -> JobCatalog.spec(empty))
                .hasMessage(
                        empty
                                + " has no "
                                + JobProvider.SERVICE_FILE
                                + ": rebuild it (kfp build).");
    }

    private void pom(String... modules) throws Exception {
        StringBuilder text = new StringBuilder("<project><modules>");
        for (String module : modules) {
            text.append("<module>").append(module).append("</module>");
        }
        Files.writeString(repo.resolve("pom.xml"), text.append("</modules></project>").toString());
    }

    private void module(String name, String provider) throws Exception {
        Path resources = Files.createDirectories(repo.resolve(name).resolve("src/main/resources"));
        if (provider != null) {
            Path file = resources.resolve(JobProvider.SERVICE_FILE);
            Files.createDirectories(file.getParent());
            Files.writeString(file, provider + "\n");
        }
    }
}
