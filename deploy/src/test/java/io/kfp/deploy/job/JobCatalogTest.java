package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.entry.JobProvider;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kfp finds every job module of the parent pom and reads its spec from its built jar; a job it does
 * not know or that is not built is named with the fix.
 */
class JobCatalogTest {

    @TempDir Path repo;

    @Test
    void theJobModulesOfThePomAreFoundWithTheirSpecs() {
        List<String> names = TestJobs.CATALOG.names();
        assertThat(names).contains("ingest", "relay", "sink").doesNotContain("common", "deploy");
        // The jobs this module depends on: another job module may still be building beside it.
        for (DeployedJob job :
                List.of(TestJobs.of("ingest"), TestJobs.of("relay"), TestJobs.of("sink"))) {
            assertThat(job.module()).isEqualTo(job.name() + "-job");
            assertThat(job.jar()).isRegularFile();
            assertThat(job.spec().owner()).as(job.name()).isNotBlank();
            assertThat(job.spec().command()).isEqualTo(job.module());
        }
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
