package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a drill ends with: each fault's recovery, the verdict and kfp verify's summary, printed and
 * written as a Markdown file, so a run's figures come from the file the tool wrote rather than from
 * a table copied by hand. The printed report ends with one {@code drill-result} line of key=value
 * pairs that programs (LabFaultMatrixTest) parse.
 */
final class DrillReport {
    static final String TABLE_HEADER =
            "| fault | injected at (s) | committed output flows again after (s) | after the fault ended (s) |";

    private final DrillRun run;
    private final String topology;
    private final String version;
    private final List<String> relayOptions;
    private final List<Fault> faults;
    private final long records;
    private final int rate;

    /**
     * @param topology the lab topology's name
     * @param version kfp's version
     * @param records how many records the drill was asked to produce at least
     * @param rate records per second
     */
    DrillReport(
            DrillRun run,
            String topology,
            String version,
            List<String> relayOptions,
            List<Fault> faults,
            long records,
            int rate) {
        this.run = run;
        this.topology = topology;
        this.version = version;
        this.relayOptions = List.copyOf(relayOptions);
        this.faults = List.copyOf(faults);
        this.records = records;
        this.rate = rate;
    }

    /** The recovery table, the verdict, kfp verify's summary and the drill-result line. */
    void print(DrillResult result, PrintStream out) {
        out.println();
        table(result).forEach(out::println);
        out.println();
        out.println(verdict(result));
        result.alerts().forEach(a -> out.println(a.sentence()));
        if (result.copy() != null) {
            out.println(verifyCommand() + ":");
            result.copy().print(out);
        }
        out.println(resultLine(result));
        out.flush();
    }

    /**
     * Writes the report to {@code file} as Markdown: to a temporary file beside it first, then
     * moved into place, so a reader never finds half a report.
     *
     * @return {@code file}
     */
    Path write(DrillResult result, Instant ended, Path file) {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(temporary, markdown(result, ended), StandardCharsets.UTF_8);
            Files.move(
                    temporary,
                    file,
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw new KfpException(
                    "could not write the drill report to "
                            + file
                            + " ("
                            + e
                            + "): give --report a file in a writable directory (the report"
                            + " printed above is complete).",
                    KfpException.FAILED,
                    e);
        }
        return file;
    }

    String markdown(DrillResult result, Instant ended) {
        List<String> lines = new ArrayList<>();
        lines.add("# Fault drill on " + topology);
        lines.add("");
        lines.add(
                "- ended (UTC): "
                        + DateTimeFormatter.ISO_INSTANT.format(
                                ended.truncatedTo(ChronoUnit.SECONDS)));
        lines.add("- kfp: " + version);
        lines.add("- topology: " + topology);
        lines.add(
                "- faults ("
                        + faults.size()
                        + "): "
                        + faults.stream().map(Fault::label).collect(Collectors.joining(", ")));
        lines.add(
                "- records: "
                        + result.produced()
                        + " produced (at least "
                        + records
                        + " asked) at "
                        + rate
                        + "/s");
        lines.add(
                "- relay: "
                        + DrillRelay.JOB_NAME
                        + " from "
                        + run.input()
                        + " to "
                        + run.output()
                        + (relayOptions.isEmpty() ? "" : ", " + String.join(" ", relayOptions)));
        lines.add("");
        lines.add("## Recovery");
        lines.add("");
        lines.addAll(table(result));
        lines.add("");
        lines.add("## Verdict");
        lines.add("");
        lines.add(verdict(result));
        if (!result.alerts().isEmpty()) {
            lines.add("");
            lines.add("## Alerts");
            lines.add("");
            result.alerts().forEach(a -> lines.add("- " + a.sentence()));
        }
        if (result.copy() != null) {
            ByteArrayOutputStream summary = new ByteArrayOutputStream();
            try (PrintStream printed = new PrintStream(summary, true, StandardCharsets.UTF_8)) {
                result.copy().print(printed);
            }
            lines.add("");
            lines.add("## " + verifyCommand());
            lines.add("");
            lines.add("```");
            summary.toString(StandardCharsets.UTF_8).lines().forEach(lines::add);
            lines.add("```");
        }
        return String.join("\n", lines) + "\n";
    }

    /** Each fault's recovery as the rows of a Markdown table, its header first. */
    static List<String> table(DrillResult result) {
        List<String> rows = new ArrayList<>();
        rows.add(TABLE_HEADER);
        rows.add("|---|---|---|---|");
        for (Recovery r : result.recoveries()) {
            rows.add(
                    String.format(
                            Locale.ROOT,
                            "| %s | %.0f | %.1f | %s |",
                            r.fault().label(),
                            r.atSeconds(),
                            r.seconds(),
                            r.afterEnd()));
        }
        return rows;
    }

    /** The sentence that says whether the output is exactly once, and every count behind it. */
    String verdict(DrillResult v) {
        return String.format(
                Locale.ROOT,
                "verdict: %s - produced %d, in the output %d distinct, %d duplicated, %d missing, %d out of order"
                        + " per key, %d strangers; %d transactions of %s* left open; %d records between last stable offset and high"
                        + " watermark; %d FAILED jobs",
                v.clean() ? "EXACTLY ONCE" : "NOT CLEAN",
                v.produced(),
                v.distinct(),
                v.duplicates(),
                v.missing(),
                v.misordered(),
                v.strangers(),
                v.ongoingTransactions(),
                run.transactionalIdPrefix(),
                v.lsoBehindHighWatermark(),
                v.failedJobs());
    }

    private String verifyCommand() {
        return "kfp verify --from " + run.input() + " --to " + run.output();
    }

    /** One line for programs (the fault-matrix test): key=value pairs. */
    static String resultLine(DrillResult v) {
        return "drill-result produced="
                + v.produced()
                + " distinct="
                + v.distinct()
                + " duplicates="
                + v.duplicates()
                + " missing="
                + v.missing()
                + " misordered="
                + v.misordered()
                + " strangers="
                + v.strangers()
                + " ongoing="
                + v.ongoingTransactions()
                + " lsoLag="
                + v.lsoBehindHighWatermark()
                + " failedJobs="
                + v.failedJobs()
                + " verified="
                + (v.copy() == null ? -1 : v.copy().matched())
                + " verifyClean="
                + (v.copy() != null && v.copy().clean())
                + " recoveries="
                + v.recoveries().stream()
                        .map(
                                r ->
                                        r.fault().label()
                                                + ":"
                                                + String.format(Locale.ROOT, "%.1f", r.seconds()))
                        .collect(Collectors.joining(","))
                + " alerts="
                + (v.alerts().isEmpty()
                        ? "unchecked"
                        : v.alerts().stream()
                                .map(AlertCheck::label)
                                .collect(Collectors.joining(",")));
    }
}
