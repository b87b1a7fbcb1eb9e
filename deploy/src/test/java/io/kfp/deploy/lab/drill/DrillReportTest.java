package io.kfp.deploy.lab.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpException;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.CopyReports;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report a drill ends with, on stdout and in its Markdown file, from results made by hand. */
class DrillReportTest {

    static final DrillRun RUN = new DrillRun("drill-1700000000");
    static final Instant ENDED = Instant.parse("2025-03-04T05:06:07.890Z");
    static final List<Recovery> RECOVERIES =
            List.of(
                    new Recovery(Fault.KILL_LEADER_BROKER, 12.4, 5.26, Double.NaN),
                    new Recovery(Fault.PARTITION_TASKMANAGER, 95.0, 21.04, 1.04));

    @TempDir Path dir;

    final DrillReport report =
            new DrillReport(
                    RUN,
                    "lab",
                    "1.2.3",
                    List.of(),
                    List.of(Fault.KILL_LEADER_BROKER, Fault.PARTITION_TASKMANAGER),
                    1000,
                    500);

    static DrillResult clean() {
        return result(0, 0, CopyReports.exactlyOnce(RUN.input(), RUN.output(), 1000));
    }

    static DrillResult result(long duplicates, long missing, CopyReport copy) {
        return new DrillResult(
                1000,
                1000 - missing,
                duplicates,
                missing,
                0,
                0,
                0,
                0,
                0,
                copy,
                RECOVERIES,
                List.of());
    }

    @Test
    void theFileHoldsTheRunTheTableTheVerdictAndTheVerifySummary() throws Exception {
        Path file = dir.resolve("run").resolve("lab").resolve("drill-report.md");

        assertThat(report.write(clean(), ENDED, file)).isEqualTo(file);

        String markdown = Files.readString(file);
        List<String> lines = markdown.lines().toList();
        assertThat(lines.get(0)).isEqualTo("# Fault drill on lab");
        assertThat(lines)
                .contains(
                        "- ended (UTC): 2025-03-04T05:06:07Z",
                        "- kfp: 1.2.3",
                        "- topology: lab",
                        "- faults (2): kill-leader-broker, partition-taskmanager",
                        "- records: 1000 produced (at least 1000 asked) at 500/s",
                        "- relay: drill-relay from drill-1700000000-in to drill-1700000000-out");
        assertThat(lines)
                .containsSubsequence(
                        DrillReport.TABLE_HEADER,
                        "|---|---|---|---|",
                        "| kill-leader-broker | 12 | 5.3 | - |",
                        "| partition-taskmanager | 95 | 21.0 | 1.0 |");
        assertThat(lines)
                .contains(
                        "verdict: EXACTLY ONCE - produced 1000, in the output 1000 distinct, 0"
                                + " duplicated, 0 missing, 0 out of order per key, 0 strangers; 0"
                                + " transactions of kfp.drill-relay.drill-1700000000-* left open; 0"
                                + " records between last stable offset and high watermark; 0 FAILED"
                                + " jobs");
        assertThat(lines)
                .containsSubsequence(
                        "## kfp verify --from drill-1700000000-in --to drill-1700000000-out",
                        "```",
                        "input  drill-1700000000-in: 1000 records",
                        "output drill-1700000000-out: 1000 records")
                .anyMatch(l -> l.startsWith("clean: every input record is in the output"));
        try (Stream<Path> written = Files.list(file.getParent())) {
            assertThat(written).as("no temporary file left").containsExactly(file);
        }
    }

    @Test
    void anUncleanResultSaysSoAndAFileWithoutVerifyHasNoSummary() throws Exception {
        Path file = dir.resolve("drill-report.md");

        report.write(result(2, 1, null), ENDED, file);

        String markdown = Files.readString(file);
        assertThat(markdown)
                .contains(
                        "verdict: NOT CLEAN - produced 1000, in the output 999 distinct, 2"
                                + " duplicated, 1 missing,")
                .doesNotContain("kfp verify")
                .doesNotContain("EXACTLY ONCE");
        // A clean count without kfp verify's byte-for-byte check is not clean either.
        report.write(result(0, 0, null), ENDED, file);
        assertThat(Files.readString(file)).contains("verdict: NOT CLEAN - produced 1000,");
        report.write(
                result(0, 0, CopyReports.oneDuplicated(RUN.input(), RUN.output(), 1000)),
                ENDED,
                file);
        assertThat(Files.readString(file))
                .contains("verdict: NOT CLEAN - produced 1000,")
                .contains("NOT clean: the output is not an exactly-once copy of the input");
    }

    @Test
    void theResultLineIsKeyValuePairsInAFixedOrder() {
        assertThat(resultLine(clean()))
                .isEqualTo(
                        "drill-result produced=1000 distinct=1000 duplicates=0 missing=0"
                                + " misordered=0 strangers=0 ongoing=0 lsoLag=0 failedJobs=0"
                                + " verified=1000 verifyClean=true"
                                + " recoveries=kill-leader-broker:5.3,partition-taskmanager:21.0"
                                + " alerts=unchecked");
        String unverified = resultLine(result(2, 1, null));
        assertThat(unverified)
                .isEqualTo(
                        "drill-result produced=1000 distinct=999 duplicates=2 missing=1"
                                + " misordered=0 strangers=0 ongoing=0 lsoLag=0 failedJobs=0"
                                + " verified=-1 verifyClean=false"
                                + " recoveries=kill-leader-broker:5.3,partition-taskmanager:21.0"
                                + " alerts=unchecked");
        // Parsed as LabFaultMatrixTest parses it.
        Map<String, String> pairs = new LinkedHashMap<>();
        Arrays.stream(unverified.substring("drill-result ".length()).split(" "))
                .forEach(
                        kv ->
                                pairs.put(
                                        kv.substring(0, kv.indexOf('=')),
                                        kv.substring(kv.indexOf('=') + 1)));
        assertThat(pairs.keySet())
                .containsExactly(
                        "produced",
                        "distinct",
                        "duplicates",
                        "missing",
                        "misordered",
                        "strangers",
                        "ongoing",
                        "lsoLag",
                        "failedJobs",
                        "verified",
                        "verifyClean",
                        "recoveries",
                        "alerts");
    }

    @Test
    void theCheckpointAlertOfAStoreOutageIsReportedAndAMissedOneFailsTheDrill() throws Exception {
        DrillResult exact = clean();
        DrillResult alerted =
                withAlerts(exact, new AlertCheck("KfpCheckpointsStalled", 21.34, 9.0));
        assertThat(resultLine(alerted))
                .endsWith(" alerts=KfpCheckpointsStalled:fired=21.3:resolved=9.0");
        assertThat(alerted.passed()).isTrue();
        Path file = dir.resolve("alerted.md");
        report.write(alerted, ENDED, file);
        assertThat(Files.readString(file))
                .contains(
                        "## Alerts\n\n- KfpCheckpointsStalled reached Alertmanager 21.3 s after the"
                                + " store stopped and was resolved 9.0 s after output flowed"
                                + " again");

        DrillResult missed =
                withAlerts(exact, new AlertCheck("KfpCheckpointsStalled", Double.NaN, Double.NaN));
        assertThat(resultLine(missed)).endsWith(" alerts=KfpCheckpointsStalled:fired=-:resolved=-");
        assertThat(missed.clean()).as("still exactly once").isTrue();
        assertThat(missed.passed()).as("but the drill fails").isFalse();
        assertThat(
                        withAlerts(exact, new AlertCheck("KfpCheckpointsStalled", 20, Double.NaN))
                                .passed())
                .as("fired, never resolved")
                .isFalse();
        assertThat(exact.passed()).as("no monitoring: nothing to check").isTrue();
    }

    private static DrillResult withAlerts(DrillResult r, AlertCheck... alerts) {
        return new DrillResult(
                r.produced(),
                r.distinct(),
                r.duplicates(),
                r.missing(),
                r.misordered(),
                r.strangers(),
                r.ongoingTransactions(),
                r.lsoBehindHighWatermark(),
                r.failedJobs(),
                r.copy(),
                r.recoveries(),
                List.of(alerts));
    }

    @Test
    void aReportThatCannotBeWrittenNamesTheFileAndTheOption() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("taken"), "a file");
        Path file = notADirectory.resolve("drill-report.md");

        assertThatThrownBy(() -> report.write(clean(), ENDED, file))
                .isInstanceOf(KfpException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("--report");
    }

    /** The line starting with drill-result among everything the report prints. */
    private String resultLine(DrillResult result) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.print(result, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        List<String> lines =
                bytes.toString(StandardCharsets.UTF_8)
                        .lines()
                        .filter(l -> l.startsWith("drill-result"))
                        .toList();
        assertThat(lines).as("drill-result lines").hasSize(1);
        return lines.get(0);
    }
}
