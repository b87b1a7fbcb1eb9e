package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.RelayVerifier;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@TalksToCluster
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Check that the output topic holds each record of the input exactly once, byte for byte;"
                    + " run it once the relay has caught up. Exit code 0: clean, 1: not, 2: could not check.",
            "Example: kfp verify --from lines --to relayed --since '30 min' (deploy/README.md has the rest)"
        })
final class VerifyCommand extends KfpCommand implements Callable<Integer> {
    /** As diff and cmp do: 1 when the output differs, 2 when it could not be checked. */
    static final int NOT_CLEAN = 1;

    static final int CANNOT_VERIFY = 2;

    @Option(
            names = "--from",
            required = true,
            paramLabel = "TOPIC",
            description = "the relay's input topic")
    String from;

    @Option(
            names = "--to",
            required = true,
            paramLabel = "TOPIC",
            description = "the relay's output topic")
    String to;

    @Option(
            names = "--since",
            paramLabel = "TIME",
            description =
                    "only records with a timestamp at or after TIME, in both topics:"
                            + " an instant (2026-12-02T04:00:00Z) or how long ago ('30 min')")
    String since;

    @Option(
            names = "--until",
            paramLabel = "TIME",
            description = "only records with a timestamp before TIME, in both topics")
    String until;

    @Option(
            names = "--from-offsets",
            paramLabel = "RANGES",
            description =
                    "only these partitions and offsets of the input:"
                            + " PARTITION:START[-END],... (END exclusive; none: to the end), e.g. 0:1200-5000,1:1180")
    String fromOffsets;

    @Option(names = "--to-offsets", paramLabel = "RANGES", description = "the same for the output")
    String toOffsets;

    @Option(
            names = "--examples",
            paramLabel = "N",
            defaultValue = "5",
            description = "examples shown of each kind (default: ${DEFAULT-VALUE})")
    int examples;

    @Option(
            names = "--in-memory",
            paramLabel = "RECORDS",
            defaultValue = "" + RelayVerifier.DEFAULT_BUCKET_ENTRIES,
            description = "records held in memory at once (default: ${DEFAULT-VALUE})")
    int inMemory;

    @Override
    public Integer call() {
        if (from.equals(to)) {
            throw new KfpException(
                    "--from and --to are both "
                            + from
                            + ": name the relay's input and its output topic.");
        }
        if (inMemory < 1 || examples < 0) {
            throw new KfpException(
                    "--in-memory must be at least 1 and --examples at least 0, not "
                            + inMemory
                            + " and "
                            + examples
                            + ".");
        }
        long now = System.currentTimeMillis();
        Long sinceMs = since == null ? null : instant("--since", since, now);
        Long untilMs = until == null ? null : instant("--until", until, now);
        ctx().requireLabNetwork();
        RelayVerifier verifier =
                new RelayVerifier(
                        ctx().settings().kafkaClient(),
                        ctx().settings().run().resolve("verify"),
                        inMemory,
                        examples,
                        ctx().out());
        CopyReport verdict;
        try {
            verdict =
                    verifier.verify(
                            from,
                            range("--from-offsets", fromOffsets, sinceMs, untilMs),
                            to,
                            range("--to-offsets", toOffsets, sinceMs, untilMs));
        } catch (IllegalArgumentException
                | IllegalStateException
                | KafkaException
                | UncheckedIOException e) {
            throw new KfpException(
                    "cannot verify "
                            + from
                            + " -> "
                            + to
                            + " on "
                            + ctx().settings().bootstrap()
                            + ": "
                            + e.getMessage(),
                    CANNOT_VERIFY,
                    e);
        }
        verdict.print(ctx().out());
        return verdict.clean() ? 0 : NOT_CLEAN;
    }

    private static RelayVerifier.Range range(
            String option, String offsets, Long sinceMs, Long untilMs) {
        if (offsets == null) {
            return RelayVerifier.Range.between(sinceMs, untilMs);
        }
        try {
            return new RelayVerifier.Range(
                    sinceMs, untilMs, RelayVerifier.Range.parseOffsets(offsets).offsets());
        } catch (IllegalArgumentException e) {
            throw new KfpException(option + " " + e.getMessage() + ".");
        }
    }

    /** An ISO-8601 instant, or a duration before {@code now}. */
    static long instant(String option, String value, long now) {
        try {
            return Instant.parse(value).toEpochMilli();
        } catch (DateTimeParseException notAnInstant) {
            try {
                return now - TimeUtils.parseDuration(value).toMillis();
            } catch (IllegalArgumentException notADuration) {
                throw new KfpException(
                        option
                                + " '"
                                + value
                                + "' is neither an instant (2026-12-02T04:00:00Z) nor how long ago ('30 min').");
            }
        }
    }
}
