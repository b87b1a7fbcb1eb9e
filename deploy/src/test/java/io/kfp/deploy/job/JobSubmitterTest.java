package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What kfp hands the job's main, decided without a cluster. */
class JobSubmitterTest {

    static final Path HOME = Path.of("").toAbsolutePath(); // deploy/
    static final Path CALLER = Path.of("/home/me/work");

    static JobSubmitter.Submission plan(Map<String, String> env, String job, String... args) {
        KfpSettings settings = KfpSettings.from(env, HOME, CALLER);
        return new JobSubmitter(settings, null, null, env, System.out, System.err)
                .plan(TestJobs.of(job), List.of(args));
    }

    @Test
    void shortLivedJvmsLeaveTheCollectorToAUserWhoChoseOne() {
        assertThat(JobSubmitter.shortLivedJvm(Map.of()))
                .containsExactly("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
        assertThat(JobSubmitter.shortLivedJvm(Map.of("JAVA_TOOL_OPTIONS", "-Xmx1g -XX:+UseG1GC")))
                .containsExactly("-XX:TieredStopAtLevel=1");
        assertThat(JobSubmitter.shortLivedJvm(Map.of("JDK_JAVA_OPTIONS", "-XX:+UseParallelGC")))
                .containsExactly("-XX:TieredStopAtLevel=1");
        assertThat(JobSubmitter.shortLivedJvm(Map.of("JAVA_TOOL_OPTIONS", "-Xmx1g")))
                .contains("-XX:+UseSerialGC");
    }

    @Test
    void byDefaultTheJobsFileSaysEverything() {
        JobSubmitter.Submission s = plan(Map.of(), "relay", "--checkpoint.interval", "1 s");
        assertThat(s.config()).isEqualTo(HOME.resolve("conf/jobs/relay.yaml"));
        assertThat(s.args()).containsExactly("--checkpoint.interval", "1 s");
    }

    @Test
    void kfpsOwnBrokerPortAndRunDirectoryReachTheJob() {
        JobSubmitter.Submission s =
                plan(
                        Map.of("KFP_KAFKA_PORT", "19092", "KFP_RUN_DIR", "/tmp/r"),
                        "sink",
                        "--job.parallelism=1");
        assertThat(s.args())
                .containsExactly(
                        "--kafka.bootstrap-servers",
                        "127.0.0.1:19092",
                        "--checkpoint.dir",
                        "/tmp/r/checkpoints/sink",
                        "--checkpoint.savepoint-dir",
                        "/tmp/r/savepoints/sink",
                        "--job.parallelism=1");
        assertThat(plan(Map.of("KAFKA_BOOTSTRAP", "b1:9092"), "relay").args())
                .containsExactly("--kafka.bootstrap-servers", "b1:9092");
    }

    @Test
    void pathsTheUserGivesAreRelativeToWhereKfpWasCalled() {
        JobSubmitter.Submission s =
                plan(Map.of(), "relay", "--checkpoint.restore-from", "sp/savepoint-1", "--x", "y");
        assertThat(s.args())
                .containsExactly(
                        "--checkpoint.restore-from", "/home/me/work/sp/savepoint-1", "--x", "y");
        assertThat(plan(Map.of(), "relay", "--checkpoint.restore-from=s3://b/chk-4").args())
                .containsExactly("--checkpoint.restore-from", "s3://b/chk-4");
        assertThatThrownBy(() -> plan(Map.of(), "relay", "--config", "mine.yaml"))
                .hasMessage("job config /home/me/work/mine.yaml does not exist");
        assertThatThrownBy(() -> plan(Map.of(), "relay", "--config=../mine.yaml"))
                .hasMessage("job config /home/me/mine.yaml does not exist");
    }

    @Test
    void onTheSecureBrokerEachJobLogsInAsItsOwnUserWithoutAPasswordOnTheCommandLine(
            @TempDir Path run) throws Exception {
        Files.createDirectories(run.resolve("kafka-security"));
        Files.writeString(
                run.resolve("kafka-security/admin.properties"), "security.protocol=SASL_SSL\n");
        List<String> args =
                plan(Map.of("KFP_RUN_DIR", run.toString()), "relay", "--job.parallelism", "1")
                        .args();
        Path users = run.resolve("kafka-security/users");
        assertThat(String.join(" ", args))
                .contains(
                        "--kafka.properties.security.protocol SASL_SSL",
                        "--kafka.properties.sasl.mechanism SCRAM-SHA-512",
                        "--kafka.properties.ssl.truststore.location "
                                + run.resolve("kafka-security/ca.crt"),
                        "--kafka.properties.config.providers file",
                        "--kafka.properties.sasl.jaas.config ${file:"
                                + users.resolve("relay.properties")
                                + ":sasl.jaas.config}")
                .doesNotContain("password")
                .endsWith("--job.parallelism 1");
        assertThat(
                        plan(
                                        Map.of(
                                                "KFP_RUN_DIR",
                                                run.toString(),
                                                "KAFKA_BOOTSTRAP",
                                                "b1:9092"),
                                        "relay")
                                .args())
                .as("an external cluster brings its own settings")
                .containsExactly(
                        "--kafka.bootstrap-servers",
                        "b1:9092",
                        "--checkpoint.dir",
                        run.resolve("checkpoints/relay").toString(),
                        "--checkpoint.savepoint-dir",
                        run.resolve("savepoints/relay").toString());
    }

    @Test
    void aFlagWithoutItsValueIsRefused() {
        assertThatThrownBy(() -> plan(Map.of(), "relay", "--checkpoint.restore-from"))
                .hasMessage("--checkpoint.restore-from needs a path");
        assertThatThrownBy(
                        () ->
                                plan(
                                        Map.of(),
                                        "relay",
                                        "--checkpoint.restore-from",
                                        "--job.parallelism",
                                        "2"))
                .hasMessage("--checkpoint.restore-from needs a path");
    }
}
