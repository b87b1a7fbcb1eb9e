package io.kfp.deploy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobProvider;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.deploy.lab.drill.Fault;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kfp CLI as a user meets it, without a cluster: help, wrong commands, wrong settings. */
class KfpCommandLineTest {

    static final Path HOME = Path.of("").toAbsolutePath(); // deploy/, where surefire runs

    @TempDir Path caller;

    record Result(int exit, String out, String err) {}

    Result kfp(Map<String, String> env, String... args) {
        return kfp(HOME, env, args);
    }

    Result kfp(Path home, Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit =
                Kfp.run(
                        args,
                        env,
                        home,
                        caller,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(
                exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Result kfp(String... args) {
        return kfp(Map.of("KFP_RUN_DIR", caller.resolve("run").toString()), args);
    }

    @Test
    void helpListsEveryCommandWithTheSettingsInForce() {
        Result help = kfp(Map.of("KFP_KAFKA_PORT", "19092"), "help");
        assertThat(help.exit()).isZero();
        for (String command :
                List.of(
                        "build",
                        "jobs",
                        "kafka",
                        "cluster",
                        "taskmanager",
                        "topics",
                        "submit",
                        "acls",
                        "stop",
                        "resume",
                        "upgrade",
                        "savepoints",
                        "cancel",
                        "status",
                        "logs",
                        "transactions",
                        "verify")) {
            assertThat(help.out()).containsPattern("(?m)^  " + command + " ");
        }
        assertThat(help.out())
                .contains("127.0.0.1:19092")
                .contains("KFP_RUN_DIR")
                .contains("FLINK_HOME");
        assertThat(kfp(Map.of("KFP_KAFKA_PORT", "19092")).out())
                .as("no command: the same help")
                .isEqualTo(help.out());
        assertThat(kfp().out())
                .as("the run directory in force")
                .contains(caller.resolve("run").toString());
    }

    @Test
    void eachCommandHasItsOwnHelp() {
        Result submit = kfp("submit", "--help");
        assertThat(submit.exit()).isZero();
        assertThat(submit.out())
                .contains("Usage: kfp submit")
                .contains("--config=FILE")
                .contains("JOB");
        assertThat(kfp("help", "resume").out()).contains("--from=PATH");
        Result drill = kfp("lab", "drill", "--help");
        assertThat(drill.exit()).as("a subcommand's subcommand: " + drill.err()).isZero();
        assertThat(drill.out()).contains("Usage: kfp lab drill").contains("--faults=LIST");
    }

    @Test
    void aclsPrintsWhatEachJobComputesFromItsOwnConfig() {
        Result relay = kfp("acls", "relay");
        assertThat(relay.exit()).as(relay.err()).isZero();
        String add =
                "kafka-acls.sh --bootstrap-server 127.0.0.1:9092 --add --allow-principal User:relay";
        assertThat(relay.out().lines().filter(l -> l.startsWith("kafka-acls.sh")).toList())
                .containsExactly(
                        add + " --operation Read --operation Describe --topic lines",
                        add + " --operation Read --group kfp.relay-job.default",
                        add + " --operation Read --group kfp-lease.group.kfp.relay-job.default",
                        add
                                + " --operation Write --operation Describe --operation DescribeConfigs --topic relayed",
                        add
                                + " --operation Write --operation Describe --transactional-id kfp.relay-job.default --resource-pattern-type prefixed",
                        add
                                + " --operation Read --group kfp-lease.transactional-id.kfp.relay-job.default --resource-pattern-type prefixed");

        Result ingest = kfp("acls", "ingest", "--principal", "User:ingest-team");
        assertThat(ingest.exit()).as(ingest.err()).isZero();
        assertThat(ingest.out())
                .as("at-least-once by default: writes, no transactions, no consumer group")
                .contains(
                        "--allow-principal User:ingest-team --operation Write --operation Describe --operation DescribeConfigs --topic lines")
                .doesNotContain("--transactional-id")
                .doesNotContain("--group");

        Result sink = kfp("acls", "sink", "--source.group-id", "readers");
        assertThat(sink.exit()).as(sink.err()).isZero();
        assertThat(sink.out())
                .contains("User:sink --operation Read --operation Describe --topic relayed")
                .contains("User:sink --operation Read --group readers")
                .contains("User:sink --operation Read --group kfp-lease.group.readers")
                .doesNotContain("Write");
    }

    @Test
    void newJobRefusesATopicItsTemplateHasNoUseForAndAnUnknownTemplate() {
        Result from =
                kfp("new-job", "clicks", "--owner", "@org/team", "--like", "ingest", "--from", "t");
        assertThat(from.exit()).isNotZero();
        assertThat(from.err())
                .contains(
                        "--from: a job --like ingest reads sockets, not a topic: set"
                                + " socket.endpoints in deploy/conf/jobs/clicks.yaml");
        Result to = kfp("new-job", "clicks", "--owner", "@org/team", "--like", "sink", "--to", "t");
        assertThat(to.err())
                .contains("--to: a job --like sink prints its records; it writes no topic.");
        Result like = kfp("new-job", "clicks", "--owner", "@org/team", "--like", "window");
        assertThat(like.err())
                .contains(
                        "--like 'window': the templates are relay (Kafka -> Kafka, exactly-once), sink");
        assertThat(HOME.resolveSibling("clicks-job")).doesNotExist();
    }

    @Test
    void anUnknownCommandIsAUsageError() {
        Result r = kfp("stauts");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("Unmatched argument").contains("status");
    }

    @Test
    void aSoakWarmUpThatIsNoDurationIsNamedBeforeAnythingStarts() {
        Result r = kfp("lab", "soak", "--warm-up", "soon");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains(
                        "--warm-up soon is not a duration: write a number with a unit, e.g. 90 s or 2 min.");
        assertThat(kfp("lab", "soak", "--help").out().replaceAll("\\s+", " "))
                .contains("--warm-up=DURATION")
                .contains("(default 2 min; 0 s for none)");
    }

    @Test
    void jobsListsEveryJobAsItsSpecAndConfigDeclareIt() {
        Result jobs = kfp("jobs");
        assertThat(jobs.exit()).as(jobs.err()).isZero();
        List<String> rows = jobs.out().lines().map(l -> l.replaceAll(" {2,}", " | ")).toList();
        assertThat(rows.get(0))
                .isEqualTo(
                        "JOB | OWNER | READS | WRITES | GUARANTEE | CONSUMER GROUP | TRANSACTIONAL IDS");
        assertThat(rows)
                .contains(
                        "ingest | @kfp/platform | sockets localhost:9999 | lines | at-least-once | - | -",
                        "relay | @kfp/platform | lines | relayed | exactly-once | kfp.relay-job.default"
                                + " | kfp.relay-job.default-*",
                        "sink | @kfp/platform | relayed | stdout | at-least-once | kfp.sink-job.default | -");
    }

    @Test
    void aJobThatWouldWriteAnotherJobsTopicIsNotSubmitted() {
        Result r = kfp("submit", "relay", "--sink.topic", "lines");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains(
                        "relay was not submitted, it would clash with another job as"
                                + " deploy/conf/jobs/ configures it: relay and ingest both write"
                                + " topic lines (sink.topic)",
                        "set sink.shared-topic: true in both jobs' configs");
    }

    @Test
    void anUnknownJobIsNamed() {
        Result r = kfp("submit", "relai");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("kfp: unknown job 'relai': the jobs are ingest, relay, sink")
                .endsWith(
                        " (kfp jobs lists them; a job is a module of pom.xml with"
                                + " META-INF/services/io.kfp.common.entry.JobProvider in its"
                                + " resources)."
                                + System.lineSeparator());
    }

    @Test
    void transactionsAimAtOneJobThatWritesThemOrOnePrefix() {
        Result neither = kfp("transactions", "list");
        assertThat(neither.exit()).isEqualTo(2);
        assertThat(neither.err())
                .containsPattern(
                        "name a job \\(ingest, relay[^)]*\\) or give --prefix PREFIX, not neither");
        Result both = kfp("transactions", "abort", "relay", "--prefix", "kfp.relay-job.");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("not both");
        Result sink = kfp("transactions", "list", "sink");
        assertThat(sink.exit()).isEqualTo(2);
        assertThat(sink.err())
                .contains(
                        "sink writes no Kafka topic, so no Kafka transactions: use a job that does"
                                + " (ingest, relay");
        Result age = kfp("transactions", "abort", "relay", "--older-than", "soon");
        assertThat(age.exit()).isEqualTo(2);
        assertThat(age.err()).contains("--older-than 'soon' is not a duration");
    }

    @Test
    void verifyNamesTheBadTopicRangeOrTimeBeforeItReadsAnything() {
        Result same = kfp("verify", "--from", "lines", "--to", "lines");
        assertThat(same.exit()).isEqualTo(2);
        assertThat(same.err()).contains("--from and --to are both lines");
        Result range = kfp("verify", "--from", "lines", "--to", "relayed", "--to-offsets", "0:9-3");
        assertThat(range.exit()).isEqualTo(2);
        assertThat(range.err())
                .isEqualTo(
                        "kfp: --to-offsets '0:9-3' ends before it starts."
                                + System.lineSeparator());
        Result time = kfp("verify", "--from", "lines", "--to", "relayed", "--since", "yesterday");
        assertThat(time.exit()).isEqualTo(2);
        assertThat(time.err())
                .contains(
                        "--since 'yesterday' is neither an instant (2026-12-02T04:00:00Z) nor how long ago ('30 min')");
        Result missing = kfp("verify", "--from", "lines");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err())
                .contains(
                        "name a job that copies (kfp verify relay) or give --from TOPIC and --to"
                                + " TOPIC.");
        Result sink = kfp("verify", "sink");
        assertThat(sink.exit()).isEqualTo(2);
        assertThat(sink.err())
                .contains("sink does not copy its input unchanged as ")
                .contains("Give --from and --to to compare two topics anyway.");
        assertThat(VerifyCommand.instant("--since", "2026-12-02T04:00:00Z", 0))
                .isEqualTo(1_796_184_000_000L);
        assertThat(VerifyCommand.instant("--since", "30 min", 1_800_000)).isZero();
    }

    @Test
    void aRunningJobOwnsTheTransactionsOfItsPrefixAndOfEveryPrefixOfIt() {
        Map<String, String> running =
                Map.of(
                        "relay-job",
                        "kfp.relay-job.default-",
                        "ingest-job",
                        "kfp.ingest-job.default-");
        assertThat(KafkaTransactions.owners("kfp.relay-job.default-", running))
                .containsExactly("relay-job");
        assertThat(KafkaTransactions.owners("kfp.relay-job.default-0-17", running))
                .as("one of its ids")
                .containsExactly("relay-job");
        assertThat(KafkaTransactions.owners("kfp.", running))
                .as("a prefix of both")
                .containsExactly("ingest-job", "relay-job");
        assertThat(KafkaTransactions.owners("kfp.relay-job.other-", running)).isEmpty();
        assertThat(KafkaTransactions.owners("drill-", Map.of())).isEmpty();
    }

    @Test
    void aBadPortSettingNamesTheVariable() {
        Map<String, String> env = new HashMap<>(Map.of("KFP_REST_PORT", "80800"));
        Result r = kfp(env, "status");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("KFP_REST_PORT=80800 is not a port");
    }

    @Test
    void aSubmitStartsFromStateOrWithoutNotBoth() {
        Result r = kfp("submit", "relay", "--from", "/tmp/savepoint-1", "--fresh");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains("--from and --fresh: a job starts from state or without; choose one.");
        assertThat(kfp("help", "resume").out())
                .contains("Without --from: from the latest one that resumes without loss");
    }

    @Test
    void jobOptionsArePassedThroughNotParsedByKfp() {
        // --checkpoint.interval is no kfp option: submit takes it as the job's, and gets as far as
        // the jar.
        Path home = caller.resolve("home");
        Result r =
                kfpIn(
                        home,
                        "submit",
                        "relay",
                        "--checkpoint.interval",
                        "1 s",
                        "--job.parallelism=3",
                        "@not-a-file");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains("the relay job is not built (")
                .contains("relay-job-")
                .contains("-job.jar is missing): run deploy/bin/kfp build.");
    }

    @Test
    void startingAnythingBeforeTheBuildSaysToBuild() {
        Result r = kfpIn(caller.resolve("home"), "kafka", "start");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .isEqualTo("kfp: not built yet: run 'kfp build' first." + System.lineSeparator());
    }

    /**
     * kfp with a deploy directory of its own in a repository of its own (the pom's modules and
     * conf/ copied, nothing built).
     */
    private Result kfpIn(Path home, String... args) {
        try {
            Files.createDirectories(home.resolve("conf/jobs"));
            Path repo = HOME.getParent();
            Files.copy(repo.resolve("pom.xml"), home.getParent().resolve("pom.xml"));
            for (String job : List.of("ingest", "relay", "sink")) {
                Files.copy(
                        HOME.resolve("conf/jobs/" + job + ".yaml"),
                        home.resolve("conf/jobs/" + job + ".yaml"));
                Path services =
                        Path.of(job + "-job", "src/main/resources", JobProvider.SERVICE_FILE);
                Files.createDirectories(home.getParent().resolve(services).getParent());
                Files.copy(repo.resolve(services), home.getParent().resolve(services));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return kfp(home.toAbsolutePath(), Map.of(), args);
    }

    @Test
    void inTheLabOnlyCommandsThatTalkToTheClusterMoveToTheClientHost() {
        assertThat(Kfp.talksToTheCluster(new String[] {"submit", "relay"})).isTrue();
        assertThat(Kfp.talksToTheCluster(new String[] {"kafka", "start"})).isTrue();
        assertThat(Kfp.talksToTheCluster(new String[] {"acls", "relay"}))
                .as("printing needs no broker")
                .isFalse();
        assertThat(Kfp.talksToTheCluster(new String[] {"acls", "relay", "--grant"})).isTrue();
        assertThat(Kfp.talksToTheCluster(new String[] {"lab", "drill"})).isTrue();
        assertThat(Kfp.talksToTheCluster(new String[] {"lab", "up"}))
                .as("namespaces are made from the machine's own")
                .isFalse();
        assertThat(Kfp.talksToTheCluster(new String[] {"lab", "down"})).isFalse();
        assertThat(Kfp.talksToTheCluster(new String[] {"help"})).isFalse();
        assertThat(Kfp.talksToTheCluster(new String[] {"submit", "--help"})).isFalse();
        assertThat(Kfp.talksToTheCluster(new String[] {})).isFalse();
    }

    @Test
    void labCommandsWithoutATopologySayHowToChooseOne() {
        Result r = kfp("lab", "up");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .contains("no topology: the lab commands need one, e.g. export KFP_TOPOLOGY=lab");
    }

    @Test
    void anUnknownFaultListsTheMatrix() {
        Assertions.assertThatThrownBy(() -> Fault.parse("kill-leader-broker,kill-everything"))
                .hasMessageStartingWith(
                        "unknown fault 'kill-everything': use matrix or some of kill-leader-broker, kill-coordinator,");
        assertThat(Fault.parse("matrix")).isEqualTo(Fault.MATRIX);
        assertThat(Fault.random(12, 1)).hasSize(12).isEqualTo(Fault.random(12, 1));
    }
}
