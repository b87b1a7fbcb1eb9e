package io.kfp.common.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.entry.JobSpec;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.entry.Workflow;
import io.kfp.common.testing.CapturedRun;
import io.kfp.common.testing.MiniClusters;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.CommonTestUtils;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A savepoint of a small keyed job, checked against the same job and against changed ones - the
 * check kfp upgrade runs before it stops anything.
 */
class RestoreCheckTest {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.withSlots(2);

    static final Path DIR = Path.of("target", "restore-check").toAbsolutePath();

    static String savepoint;

    /** Counts per key; its operators' uids and its max parallelism are the test's variables. */
    static Workflow counting(String counterUid, String sinkUid, int maxParallelism) {
        return env -> {
            if (maxParallelism > 0) {
                env.setMaxParallelism(maxParallelism);
            }
            env.fromSource(
                            new DataGeneratorSource<>(
                                    i -> i,
                                    Long.MAX_VALUE,
                                    RateLimiterStrategy.perSecond(200),
                                    Types.LONG),
                            WatermarkStrategy.noWatermarks(),
                            "numbers")
                    .uid("numbers")
                    .keyBy(i -> i % 10)
                    .process(new Count())
                    .uid(counterUid)
                    .name("count")
                    .sinkTo(new DiscardingSink<>())
                    .uid(sinkUid);
        };
    }

    static final class Count extends KeyedProcessFunction<Long, Long, Long> {
        private transient ValueState<Long> count;

        @Override
        public void open(OpenContext context) {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
            long next = (count.value() == null ? 0 : count.value()) + 1;
            count.update(next);
            out.collect(next);
        }
    }

    static JobSpec spec(Workflow workflow) {
        return JobSpec.builder("restore-check", "counts numbers per key.")
                .owner("@kfp/platform")
                .workflow(config -> workflow);
    }

    static Configuration config(String... args) {
        List<String> all =
                new ArrayList<>(List.of("--checkpoint.dir", DIR.resolve("chk").toString()));
        all.addAll(List.of(args));
        return spec(counting("counter", "sink", 0)).configuration(all.toArray(String[]::new));
    }

    /**
     * Taken once, before the first test: the shared cluster becomes the jobs' environment only
     * around each test, so a {@code @BeforeAll} job would run on a local cluster of its own.
     */
    @BeforeEach
    void takeASavepointOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        if (savepoint != null) {
            return;
        }
        JobClient job = StreamEnvironments.executeAsync(config(), counting("counter", "sink", 0));
        // A RUNNING job may still be deploying its tasks, and a savepoint then aborts.
        CommonTestUtils.waitForAllTaskRunning(cluster, job.getJobID(), false);
        savepoint =
                job.stopWithSavepoint(
                                false,
                                DIR.resolve("savepoints").toString(),
                                SavepointFormatType.CANONICAL)
                        .get(2, TimeUnit.MINUTES);
    }

    /** The savepoint checked against the counting job with these uids and max parallelism. */
    static RestoreCheck.Verdict checkedAgainst(
            String counterUid, String sinkUid, int maxParallelism) throws Exception {
        return RestoreCheck.check(
                savepoint,
                StreamEnvironments.jobGraph(
                        config(), counting(counterUid, sinkUid, maxParallelism)));
    }

    @Test
    void theSameJobRestoresEveryOperatorState() throws Exception {
        RestoreCheck.Verdict verdict = checkedAgainst("counter", "sink", 0);
        assertThat(verdict.restores()).as("%s", verdict).isTrue();
        assertThat(verdict.restored())
                .extracting(RestoreCheck.Operator::uid)
                .contains("numbers", "counter");
    }

    @Test
    void aStatefulOperatorWhoseUidChangedIsNamedAsDropped() throws Exception {
        RestoreCheck.Verdict verdict = checkedAgainst("counter-v2", "sink", 0);
        assertThat(verdict.restores()).isFalse();
        assertThat(verdict.dropped())
                .extracting(RestoreCheck.Operator::uid)
                .containsExactly("counter");
        assertThat(String.join("\n", verdict.lines("restore-check")))
                .contains(
                        "does not restore into restore-check:",
                        "state of uid counter (",
                        "has no operator of that uid in restore-check: it would be dropped",
                        "checkpoint.allow-non-restored-state");
    }

    @Test
    void aStatelessOperatorMayChangeItsUid() throws Exception {
        RestoreCheck.Verdict verdict = checkedAgainst("counter", "sink-v2", 0);
        assertThat(verdict.restores()).as("%s", verdict).isTrue();
    }

    @Test
    void anotherMaxParallelismForKeyedStateIsNamed() throws Exception {
        RestoreCheck.Verdict verdict = checkedAgainst("counter", "sink", 64);
        assertThat(verdict.problems())
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .contains("uid counter", "max parallelism 128", "sets 64"));
    }

    @Test
    void aCheckpointSubsumedMeanwhileIsReplacedByTheNewestBesideIt() throws Exception {
        Path job = DIR.resolve("subsumed/0123");
        for (String chk : List.of("chk-3", "chk-5")) {
            java.nio.file.Files.createDirectories(job.resolve(chk));
            java.nio.file.Files.writeString(job.resolve(chk).resolve("_metadata"), "");
        }
        java.nio.file.Files.createDirectories(job.resolve("chk-6")); // still being written
        assertThat(RestoreCheck.newestIfSubsumed("file:" + job.resolve("chk-4")))
                .isEqualTo("file:" + job.resolve("chk-5"));
        assertThat(RestoreCheck.newestIfSubsumed("file:" + job.resolve("chk-3")))
                .isEqualTo("file:" + job.resolve("chk-3"));
        assertThat(RestoreCheck.newestIfSubsumed("file:" + job.resolve("chk-9")))
                .as("nothing newer: the path as given, to be reported missing")
                .isEqualTo("file:" + job.resolve("chk-9"));
    }

    @Test
    void theJobsMainChecksWithoutRunningAndExitsOneWhenStateWouldBeDropped() {
        CapturedRun same =
                CapturedRun.of(
                        spec(counting("counter", "sink", 0)),
                        "--checkpoint.dir",
                        DIR.resolve("chk").toString(),
                        "--checkpoint.check-restore-from",
                        savepoint);
        assertThat(same.exitCode()).as(same.err()).isZero();
        assertThat(same.out()).contains(savepoint + " restores into restore-check");

        CapturedRun renamed =
                CapturedRun.of(
                        spec(counting("counter-v2", "sink", 0)),
                        "--checkpoint.dir",
                        DIR.resolve("chk").toString(),
                        "--checkpoint.check-restore-from",
                        savepoint);
        assertThat(renamed.exitCode()).isEqualTo(1);
        assertThat(renamed.out()).contains("state of uid counter");

        CapturedRun missing =
                CapturedRun.of(
                        spec(counting("counter", "sink", 0)),
                        "--checkpoint.dir",
                        DIR.resolve("chk").toString(),
                        "--checkpoint.check-restore-from",
                        DIR.resolve("no-such-savepoint").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err())
                .contains("could not read", "no-such-savepoint", "checkpoint.check-restore-from");
    }
}
