package io.kfp.deploy.cli;

import io.kfp.common.entry.JobEndpoints;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.ops.verify.CopyReport;
import io.kfp.ops.verify.RelayVerifier;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@TalksToCluster
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Check that the output topic holds each record of the input exactly once, byte for byte;"
                    + " run it once the job has caught up. Exit code 0: clean, 1: not, 2: could not check.",
            "Example: kfp verify relay --since '30 min', or any two topics: kfp verify --from lines --to relayed"
        })
final class VerifyCommand extends KfpCommand implements Callable<Integer> {
    /** As diff and cmp do: 1 when the output differs, 2 when it could not be checked. */
    static final int NOT_CLEAN = 1;

    static final int CANNOT_VERIFY = 2;

    @Parameters(
            arity = "0..1",
            paramLabel = "JOB",
            description =
                    "a job that copies (kfp jobs): its input and output topics from its config")
    String job;

    @Option(
            names = "--from",
            paramLabel = "TOPIC",
            description = "the input topic (default: the job's)")
    String from;

    @Option(
            names = "--to",
            paramLabel = "TOPIC",
            description = "the output topic (default: the job's)")
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
        if (job != null) {
            topicsOf(ctx().job(job));
        } else if (from == null || to == null) {
            throw new KfpException(
                    "name a job that copies (kfp verify relay) or give --from TOPIC and --to TOPIC.");
        }
        if (from.equals(to)) {
            throw new KfpException(
                    "--from and --to are both "
                            + from
                            + ": name the job's input and its output topic.");
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

    /** --from and --to, where not given, from what {@code deployed} reads and writes. */
    private void topicsOf(DeployedJob deployed) {
        Path file = deployed.defaultConfig(ctx().settings());
        Configuration config = deployed.settings(file, ctx().environment());
        JobEndpoints endpoints = deployed.spec().endpoints(config);
        if (!endpoints.copies()) {
            throw new KfpException(
                    deployed.name()
                            + " does not copy its input unchanged as "
                            + file
                            + " configures it, so its output cannot be matched record by record"
                            + " (a job says when it copies in its spec; the relay does unless"
                            + " relay.transform is set). Give --from and --to to compare two"
                            + " topics anyway.");
        }
        List<String> inputs = SourceOptions.topics(config);
        if (from == null) {
            if (inputs.size() != 1) {
                throw new KfpException(
                        deployed.name()
                                + " reads "
                                + SourceOptions.describeInput(config)
                                + ": name the input topic to check with --from TOPIC.");
            }
            from = inputs.get(0);
        }
        if (to == null) {
            to = config.get(KafkaSinkOptions.TOPIC);
        }
    }
}
