package io.kfp.deploy.cli;

import io.kfp.common.config.JobOptions;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.kafka.KafkaTransactions;
import io.kfp.deploy.kafka.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@TalksToCluster
@Command(
        name = "transactions",
        mixinStandardHelpOptions = true,
        description = {
            "Kafka transactions of a job's transactional id prefix (a job that writes Kafka) or of any --prefix.",
            "An open one holds back the last stable offset of every partition it wrote to: read_committed readers (the next"
                    + " job, the sink) see nothing newer there until it ends - by its producer, at its timeout, or by 'abort'."
        })
final class TransactionsCommand extends KfpCommand {
    /** What both subcommands aim at: a job's prefix, from its config, or one given as it is. */
    static final class Target {
        @Parameters(
                arity = "0..1",
                paramLabel = "JOB",
                description = "a job that writes Kafka: the prefix it runs with from its config")
        String job;

        @Option(
                names = "--config",
                paramLabel = "FILE",
                description = "the job's config file instead of deploy/conf/jobs/JOB.yaml")
        String config;

        @Option(
                names = "--prefix",
                paramLabel = "PREFIX",
                description = "any transactional id prefix instead of a job's")
        String prefix;
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = {
                "List the open transactions (--all: in every state).",
                "Each with its state, age, producer id and epoch, and the partitions whose last stable offset it holds back."
            })
    void list(
            @Mixin Target target,
            @Option(
                            names = "--all",
                            description =
                                    "also the ended ones (CompleteCommit, CompleteAbort, Empty, ...)")
                    boolean all) {
        String of = transactionalIdPrefix(target.job, target.config, target.prefix);
        ctx().requireLabNetwork();
        try (Admin admin = Topics.admin(ctx().settings())) {
            KafkaTransactions transactions = new KafkaTransactions(admin, ctx().out());
            transactions.print(of, transactions.list(of, all), all);
        }
    }

    @Command(
            name = "abort",
            mixinStandardHelpOptions = true,
            description = {
                "Abort the open (Ongoing) transactions of the prefix.",
                "Fences their transactional ids (Admin.fenceProducers): the broker aborts what is open and refuses a producer"
                        + " still using an id from then on. Refused while a job running on the cluster writes with that prefix"
                        + " (its checkpoint would fail and it would restart), unless --force."
            })
    void abort(
            @Mixin Target target,
            @Option(
                            names = "--older-than",
                            paramLabel = "DURATION",
                            description =
                                    "only transactions open at least this long, e.g. '15 min' (default: every open one)")
                    String olderThan,
            @Option(
                            names = "--force",
                            description =
                                    "abort even while a running job of the cluster writes with the prefix")
                    boolean force) {
        String of = transactionalIdPrefix(target.job, target.config, target.prefix);
        Duration minimumAge = Duration.ZERO;
        if (olderThan != null) {
            try {
                minimumAge = TimeUtils.parseDuration(olderThan);
            } catch (IllegalArgumentException e) {
                throw new KfpException(
                        "--older-than '"
                                + olderThan
                                + "' is not a duration: use e.g. '90 s' or '15 min'.");
            }
        }
        ctx().requireLabNetwork();
        List<String> owners = KafkaTransactions.owners(of, runningPrefixes());
        if (!owners.isEmpty() && !force) {
            throw new KfpException(
                    String.join(", ", owners)
                            + " is running on the cluster and writes transactions of prefix "
                            + of
                            + ": aborting them fails its checkpoint and restarts it. Stop it first (kfp stop JOB), or add --force.");
        }
        try (Admin admin = Topics.admin(ctx().settings())) {
            KafkaTransactions transactions = new KafkaTransactions(admin, ctx().out());
            List<KafkaTransactions.Transaction> open = transactions.list(of, false);
            if (transactions.abort(open, minimumAge).isEmpty()) {
                ctx().out()
                        .println(
                                "nothing to abort: no Ongoing transaction of prefix "
                                        + of
                                        + (minimumAge.isZero()
                                                ? ""
                                                : " open for at least "
                                                        + TimeUtils.formatWithHighestUnit(
                                                                minimumAge)));
            }
        }
    }

    /**
     * The prefix kfp transactions works on: exactly one of a job that writes Kafka (its config
     * file) or a prefix given as it is.
     */
    String transactionalIdPrefix(String job, String config, String prefix) {
        if ((job == null) == (prefix == null)) {
            throw new KfpException(
                    "name a job ("
                            + String.join(", ", kafkaWriters())
                            + ") or give --prefix PREFIX, not "
                            + (job == null ? "neither" : "both")
                            + ".");
        }
        if (prefix != null) {
            return prefix;
        }
        DeployedJob deployed = ctx().job(job);
        if (!deployed.spec().writesKafka()) {
            throw new KfpException(
                    deployed.name()
                            + " writes no Kafka topic, so no Kafka transactions: use a job that"
                            + " does ("
                            + String.join(", ", kafkaWriters())
                            + ").");
        }
        Path file =
                config == null
                        ? deployed.defaultConfig(ctx().settings())
                        : Path.of(ctx().settings().absolute(config));
        return KafkaTransactions.idsOf(deployed.settings(file, ctx().environment()));
    }

    /**
     * Each writing job running on the cluster (by the name its config gives it) and its
     * transactional id prefix; none when no JobManager answers.
     */
    Map<String, String> runningPrefixes() {
        Map<String, String> running = new TreeMap<>();
        if (!ctx().cluster().anyJobManagerAnswers()) {
            return running;
        }
        try (FlinkRest rest = ctx().rest()) {
            List<JobStatusMessage> jobs = rest.jobs();
            for (DeployedJob deployed : ctx().jobs().built()) {
                if (!deployed.spec().writesKafka()) {
                    continue;
                }
                Path file = deployed.defaultConfig(ctx().settings());
                if (!Files.isRegularFile(file)) {
                    continue;
                }
                Configuration config = deployed.settings(file, ctx().environment());
                String jobName = config.get(JobOptions.NAME);
                if (!FlinkRest.notEnded(jobs, jobName).isEmpty()) {
                    running.put(jobName, KafkaTransactions.idsOf(config));
                }
            }
        }
        return running;
    }

    /** The jobs that write Kafka, whose prefixes kfp transactions can name. */
    private List<String> kafkaWriters() {
        return ctx().jobs().built().stream()
                .filter(j -> j.spec().writesKafka())
                .map(DeployedJob::name)
                .toList();
    }
}
