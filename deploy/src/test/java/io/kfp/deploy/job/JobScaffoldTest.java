package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.common.entry.JobProvider;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.ops.jobs.JobModules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kfp new-job makes a module that builds and passes its tests right away - checked in a scratch
 * copy of this repository, with Maven - and refuses a bad or taken name before writing anything.
 */
class JobScaffoldTest {

    static final Path REPO = TestJobs.HOME.getParent();

    static final String VERSION =
            KfpSettings.from(Map.of(), TestJobs.HOME, TestJobs.HOME).version();

    /** What a copy of the repository leaves out: build output, runtime files, git. */
    static final Set<String> NOT_COPIED = Set.of("target", ".git", "run");

    /** A name of 40 characters, the most kfp new-job takes. */
    static final String LONG = "orders-copy-for-the-quarterly-report-eu1";

    static final String PACKAGE = "orderscopyforthequarterlyreporteu1";

    static final String CLASS = "OrdersCopyForTheQuarterlyReportEu1";

    static final String LONG_SINK = "orders-show-for-the-quarterly-report-eu1";

    static final String LONG_INGEST = "orders-feed-for-the-quarterly-report-eu1";

    @TempDir Path dir;

    @Test
    void aNewJobOfEachTemplateBuildsAndPassesItsTestsRightAway() throws Exception {
        Path scratch = TestJobs.HOME.resolve("target/scaffold-test/repo").toAbsolutePath();
        deleteTree(scratch.getParent());
        copyTree(REPO, scratch);

        // Of each template the longest name kfp new-job takes and the shortest: the code is
        // formatted for both. The long ones' tests run; the short ones are built and checked.
        List<String> written =
                new JobScaffold(scratch, VERSION)
                        .create(
                                LONG,
                                "@my-org/orders",
                                JobScaffold.Template.RELAY,
                                "orders",
                                "orders-copied");
        assertThat(written)
                .contains(
                        LONG + "-job/pom.xml",
                        LONG + "-job/src/main/java/io/kfp/" + PACKAGE + "/" + CLASS + "Job.java",
                        LONG
                                + "-job/src/test/java/io/kfp/"
                                + PACKAGE
                                + "/"
                                + CLASS
                                + "ContractTest.java",
                        "deploy/conf/jobs/" + LONG + ".yaml");
        new JobScaffold(scratch, VERSION)
                .create("x", "@my-user", JobScaffold.Template.RELAY, "x-in", "x-out");
        List<String> printing =
                new JobScaffold(scratch, VERSION)
                        .create(
                                LONG_SINK,
                                "@my-org/orders",
                                JobScaffold.Template.SINK,
                                "orders-copied",
                                null);
        assertThat(printing).noneMatch(file -> file.endsWith("ContractTest.java"));
        new JobScaffold(scratch, VERSION)
                .create("s", "@my-user", JobScaffold.Template.SINK, "s-in", null);
        new JobScaffold(scratch, VERSION)
                .create(LONG_INGEST, "@my-org/orders", JobScaffold.Template.INGEST, null, "orders");
        new JobScaffold(scratch, VERSION)
                .create("i", "@my-user", JobScaffold.Template.INGEST, null, "i-out");
        assertThat(Files.readString(scratch.resolve("pom.xml")))
                .contains("<module>" + LONG + "-job</module>\n    <module>x-job</module>");
        assertThat(Files.readString(scratch.resolve("CODEOWNERS")))
                .contains(
                        "/" + LONG + "-job/ @my-org/orders\n",
                        "/deploy/conf/jobs/" + LONG + ".yaml @my-org/orders\n",
                        "/x-job/ @my-user\n");
        assertThat(JobModules.of(scratch))
                .containsEntry(LONG, LONG + "-job")
                .containsEntry(LONG_SINK, LONG_SINK + "-job")
                .containsEntry("i", "i-job");
        assertThat(Files.readString(scratch.resolve("deploy/conf/jobs/i.yaml")))
                .contains("sink.topic: i-out\n", "socket.endpoints: localhost:9999\n");
        assertThat(Files.readString(scratch.resolve("deploy/conf/jobs/s.yaml")))
                .contains("source.topics: s-in\n")
                .doesNotContain("sink.topic");

        Path log = scratch.getParent().resolve("maven.log");
        Process maven =
                new ProcessBuilder(
                                List.of(
                                        scratch.resolve("mvnw").toString(),
                                        "-o",
                                        "-B",
                                        "-pl",
                                        String.join(
                                                ",",
                                                LONG + "-job",
                                                "x-job",
                                                LONG_SINK + "-job",
                                                "s-job",
                                                LONG_INGEST + "-job",
                                                "i-job"),
                                        "-am",
                                        "verify",
                                        "-Dtest=OrdersCopy*,OrdersShow*,OrdersFeed*",
                                        "-Dsurefire.failIfNoSpecifiedTests=false"))
                        .directory(scratch.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        try {
            assertThat(maven.waitFor(10, TimeUnit.MINUTES)).as("Maven within 10 min").isTrue();
        } finally {
            maven.descendants().forEach(ProcessHandle::destroyForcibly);
            maven.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(maven.exitValue()).as("./mvnw -pl ... -am verify:\n%s", output).isZero();
        Map<String, List<String>> testsOf =
                Map.of(
                        LONG, List.of("JobTest", "ModuleTest", "ContractTest"),
                        LONG_SINK, List.of("JobTest", "ModuleTest"),
                        LONG_INGEST, List.of("JobTest", "ModuleTest"));
        for (Map.Entry<String, List<String>> job : testsOf.entrySet()) {
            String pkg = "io.kfp." + job.getKey().replace("-", "");
            Path reports = scratch.resolve(job.getKey() + "-job/target/surefire-reports");
            for (String test : job.getValue()) {
                String name = pkg + "." + JobScaffold.className(job.getKey()) + test;
                assertThat(reports.resolve(name + ".txt"))
                        .as("%s ran", name)
                        .content()
                        .contains("Failures: 0, Errors: 0, Skipped: 0");
            }
        }
        deleteTree(scratch.getParent());
    }

    @Test
    void aBadOrTakenNameOrAnOwnerCodeOwnersCannotTakeIsRefusedBeforeAnythingIsWritten()
            throws Exception {
        Files.writeString(
                dir.resolve("pom.xml"),
                "<project>\n  <modules>\n    <module>common</module>\n"
                        + "    <module>relay-job</module>\n  </modules>\n</project>\n");
        Path services =
                dir.resolve("relay-job/src/main/resources").resolve(JobProvider.SERVICE_FILE);
        Files.createDirectories(services.getParent());
        Files.writeString(services, "io.kfp.relay.RelayJob$Provider\n");
        Files.createDirectories(dir.resolve("common"));
        JobScaffold scaffold = new JobScaffold(dir, VERSION);

        assertThatThrownBy(() -> create(scaffold, "Dedup", "@org/team"))
                .isInstanceOf(KfpException.class)
                .hasMessageStartingWith("job name 'Dedup': use lower-case letters and digits");
        assertThatThrownBy(() -> create(scaffold, "dedup-job", "@org/team"))
                .hasMessageContaining("without -job (kfp adds it)");
        assertThatThrownBy(() -> create(scaffold, "relay", "@org/team"))
                .hasMessage("a job named relay exists (kfp jobs lists them): choose another name.");
        assertThatThrownBy(() -> create(scaffold, "common", "@org/team"))
                .hasMessage("job name 'common' is taken by kfp or the build: choose another.");
        assertThatThrownBy(() -> create(scaffold, "dedup", "payments"))
                .hasMessageContaining(
                        "--owner 'payments': kfp writes it into CODEOWNERS, so give a GitHub team"
                                + " or user");
        assertThatThrownBy(
                        () ->
                                scaffold.create(
                                        "dedup",
                                        "@org/team",
                                        JobScaffold.Template.RELAY,
                                        "in put",
                                        "out"))
                .hasMessageStartingWith("--from 'in put': ");
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(Files::isRegularFile).toList())
                    .as("nothing written")
                    .containsExactlyInAnyOrder(dir.resolve("pom.xml"), services);
        }
        assertThat(Files.readString(dir.resolve("pom.xml"))).doesNotContain("dedup");
    }

    @Test
    void theModuleIsListedAfterTheLastJobModule() {
        String pom =
                "<project>\n  <modules>\n    <module>common</module>\n    <module>relay-job</module>\n"
                        + "    <module>deploy</module>\n  </modules>\n</project>\n";
        assertThat(
                        new JobScaffold(REPO, VERSION)
                                .withModule(pom, "dedup-job", List.of("relay-job")))
                .contains(
                        "<module>relay-job</module>\n    <module>dedup-job</module>\n    <module>deploy");
        assertThat(JobScaffold.className("fraud-score-v2")).isEqualTo("FraudScoreV2");
    }

    private static void create(JobScaffold scaffold, String name, String owner) {
        scaffold.create(name, owner, JobScaffold.Template.RELAY, "in", "out");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path relative = from.relativize(path);
                if (relative.toString().isEmpty()) {
                    continue;
                }
                boolean skipped = false;
                for (Path part : relative) {
                    skipped |= NOT_COPIED.contains(part.toString());
                }
                if (skipped) {
                    continue;
                }
                Path target = to.resolve(relative.toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
