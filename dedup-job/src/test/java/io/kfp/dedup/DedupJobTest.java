package io.kfp.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kfp.common.config.JobOptions;
import io.kfp.common.entry.StreamEnvironments;
import io.kfp.common.kafka.KafkaRecord;
import io.kfp.common.testing.CollectingSink;
import io.kfp.common.testing.ListSource;
import io.kfp.common.testing.MiniClusters;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The job's graph on a list of records and a collecting sink, without Kafka. */
class DedupJobTest {

    @RegisterExtension static final MiniClusterExtension CLUSTER = MiniClusters.withSlots(2);

    static Configuration config(String... args) {
        List<String> all =
                new ArrayList<>(
                        List.of(
                                "--source.topics",
                                "in",
                                "--sink.topic",
                                "out",
                                "--job.parallelism",
                                "2",
                                "--checkpoint.dir",
                                "target/checkpoints",
                                "--checkpoint.savepoint-dir",
                                "target/savepoints"));
        all.addAll(List.of(args));
        return DedupJob.SPEC.configuration(all.toArray(String[]::new));
    }

    static KafkaRecord record(String key, String value, int partition) {
        return new KafkaRecord(
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8),
                1_767_225_600_000L,
                partition);
    }

    static List<KafkaRecord> run(Configuration config, List<KafkaRecord> input) throws Exception {
        CollectingSink<KafkaRecord> sink = new CollectingSink<>();
        StreamEnvironments.execute(
                config,
                new DedupJob(
                        config, ListSource.of(input, TypeInformation.of(KafkaRecord.class)), sink));
        return sink.received();
    }

    @Test
    void passesTheFirstRecordOfEachKeyByteForByte() throws Exception {
        List<KafkaRecord> input = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            input.add(record("id-" + i % 100, "copy-" + i / 100, 0));
        }
        // One source subtask: the list's order is the order the copies arrive in, as a Kafka
        // partition's is (both copies of an id share one).
        Configuration config = config("--job.parallelism", "1");
        assertThat(config.get(JobOptions.PARALLELISM)).isEqualTo(1);
        List<KafkaRecord> out = run(config, input);
        assertThat(out)
                .hasSize(100)
                .allMatch(r -> new String(r.value, StandardCharsets.UTF_8).equals("copy-0"));
    }

    @Test
    void takesTheIdFromTheValueWhenTold() throws Exception {
        List<KafkaRecord> input =
                List.of(
                        record("a", "order-1,10", 0),
                        record("b", "order-1,10", 0),
                        record("c", "order-2,20", 0),
                        record("d", "no comma", 0));
        List<KafkaRecord> out =
                run(
                        config(
                                "--dedup.id-from",
                                "value",
                                "--dedup.id-pattern",
                                "^([^,]+),",
                                "--job.parallelism",
                                "1"),
                        input);
        assertThat(out)
                .extracting(r -> new String(r.key, StandardCharsets.UTF_8))
                .containsExactlyInAnyOrder("a", "c", "d");
    }

    @Test
    void aRecordWithoutAnIdPassesOrIsDroppedAsTold() throws Exception {
        List<KafkaRecord> input =
                List.of(record(null, "x", 0), record(null, "x", 1), record("k", "y", 0));
        assertThat(run(config(), input)).as("pass, the default: nothing lost").hasSize(3);
        assertThat(run(config("--dedup.missing-id", "drop"), input)).hasSize(1);
    }

    @Test
    void aValueIdNeedsAPatternWithAGroup() {
        assertThat(catchThrowable(() -> config("--dedup.id-from", "value")))
                .hasMessageContaining("dedup.id-pattern");
        assertThat(
                        catchThrowable(
                                () ->
                                        config(
                                                "--dedup.id-from",
                                                "value",
                                                "--dedup.id-pattern",
                                                "^[^,]+,")))
                .hasMessageContaining("has no group");
        assertThat(catchThrowable(() -> config("--dedup.id-pattern", "(x)")))
                .hasMessageContaining("dedup.id-from is key: it would be ignored");
    }
}
