package io.kfp.common.preflight;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.ConfigProblem;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.kafka.TransactionTimeout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, before a job is submitted, that Kafka will accept it: the brokers answer, the topics
 * exist, and an exactly-once sink's transaction timeout is allowed by the brokers. Each failure
 * becomes one message saying what is wrong and how to fix it.
 */
public final class BrokerPreflight {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerPreflight.class);

    /** Opens a view of the cluster; {@link AdminBrokerView#AdminBrokerView} in production. */
    @FunctionalInterface
    public interface BrokerViewFactory {
        BrokerView open(Properties connection, Duration timeout);
    }

    /** What a job needs from the cluster. */
    public record Requirements(
            String bootstrapServers,
            List<String> inputTopics,
            Optional<String> outputTopic,
            Optional<Duration> exactlyOnceTransactionTimeout,
            Optional<String> consumerGroup,
            Optional<String> transactionalIdPrefix) {

        /** Topics and the transaction timeout only: no group or prefix to check. */
        public Requirements(
                String bootstrapServers,
                List<String> inputTopics,
                Optional<String> outputTopic,
                Optional<Duration> exactlyOnceTransactionTimeout) {
            this(
                    bootstrapServers,
                    inputTopics,
                    outputTopic,
                    exactlyOnceTransactionTimeout,
                    Optional.empty(),
                    Optional.empty());
        }

        /** Derived from the option groups the job uses and their validated values. */
        public static Requirements from(ReadableConfig config, Collection<OptionGroup> groups) {
            List<String> inputs =
                    groups.contains(SourceOptions.GROUP) ? SourceOptions.topics(config) : List.of();
            Optional<String> group =
                    groups.contains(SourceOptions.GROUP)
                            ? Optional.of(SourceOptions.groupId(config))
                            : Optional.empty();
            Optional<String> output = Optional.empty();
            Optional<Duration> transactionTimeout = Optional.empty();
            Optional<String> prefix = Optional.empty();
            if (groups.contains(KafkaSinkOptions.GROUP)) {
                output = config.getOptional(KafkaSinkOptions.TOPIC);
                if (config.get(KafkaSinkOptions.DELIVERY_GUARANTEE)
                        == DeliveryGuarantee.EXACTLY_ONCE) {
                    transactionTimeout =
                            Optional.of(config.get(KafkaSinkOptions.TRANSACTION_TIMEOUT));
                    prefix = Optional.of(KafkaSinkOptions.transactionalIdPrefix(config));
                }
            }
            return new Requirements(
                    config.get(KafkaClientOptions.BOOTSTRAP_SERVERS),
                    inputs,
                    output,
                    transactionTimeout,
                    group,
                    prefix);
        }
    }

    private BrokerPreflight() {}

    /** Opens a view with {@code factory}, runs {@link #check}, closes the view. */
    public static List<ConfigProblem> run(
            Requirements requirements,
            Properties connection,
            Duration timeout,
            BrokerViewFactory factory) {
        return run(requirements, connection, timeout, factory, null, List.of(), warning -> {});
    }

    /**
     * Like {@link #run(Requirements, Properties, Duration, BrokerViewFactory)}, then the job's own
     * checks.
     */
    public static List<ConfigProblem> run(
            Requirements requirements,
            Properties connection,
            Duration timeout,
            BrokerViewFactory factory,
            ReadableConfig config,
            List<JobPreflight> jobChecks,
            Consumer<String> warnings) {
        BrokerView view;
        try {
            view = factory.open(connection, timeout);
        } catch (RuntimeException e) {
            return List.of(PreflightProblems.clientNotCreated(requirements, e));
        }
        try (view) {
            List<ConfigProblem> problems = check(requirements, view, timeout, warnings, connection);
            if (!problems.isEmpty()) {
                return problems;
            }
            for (JobPreflight jobCheck : jobChecks) {
                try {
                    problems.addAll(jobCheck.check(config, view));
                } catch (Exception e) {
                    problems.add(
                            PreflightProblems.failed(requirements, "run the job's own checks", e));
                }
            }
            if (problems.isEmpty()) {
                try {
                    problems.addAll(
                            SecondCopies.check(requirements, view, warnings, SecondCopies.SYSTEM));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    problems.add(
                            PreflightProblems.failed(
                                    requirements, "check for another copy of the job", e));
                }
            }
            if (problems.isEmpty()
                    && config != null
                    && requirements.exactlyOnceTransactionTimeout().isPresent()) {
                TransactionWarnings.secondCopyWarning(
                                KafkaSinkOptions.transactionalIdPrefix(config),
                                config.get(CheckpointOptions.INTERVAL),
                                view)
                        .ifPresent(warnings);
                TransactionWarnings.lingeringWarning(config, view).ifPresent(warnings);
            }
            return problems;
        }
    }

    /**
     * Every problem the cluster has with this job; empty when it may be submitted. Skipped checks
     * are logged.
     */
    public static List<ConfigProblem> check(
            Requirements requirements, BrokerView view, Duration timeout) {
        return check(requirements, view, timeout, LOG::warn);
    }

    /**
     * Every problem the cluster has with this job; empty when it may be submitted. A check this
     * client is not authorized for (reading the brokers' transaction.max.timeout.ms needs
     * DescribeConfigs on the cluster, which a job's least-privilege user lacks) is skipped with a
     * warning naming it; every other check still runs.
     */
    public static List<ConfigProblem> check(
            Requirements requirements,
            BrokerView view,
            Duration timeout,
            Consumer<String> warnings) {
        return check(requirements, view, timeout, warnings, new Properties());
    }

    /**
     * {@link #check(Requirements, BrokerView, Duration, Consumer)}; {@code connection} names who
     * failed to log in.
     */
    static List<ConfigProblem> check(
            Requirements requirements,
            BrokerView view,
            Duration timeout,
            Consumer<String> warnings,
            Properties connection) {
        List<ConfigProblem> problems = new ArrayList<>();
        try {
            view.ping();
        } catch (Exception e) {
            return List.of(
                    ExceptionUtils.getRootCause(e) instanceof AuthenticationException authentication
                            ? PreflightProblems.notAuthenticated(
                                    requirements, connection, authentication)
                            : PreflightProblems.unreachable(requirements, timeout, e));
        }

        Set<String> topics;
        try {
            topics = view.topicNames();
        } catch (Exception e) {
            return List.of(PreflightProblems.failed(requirements, "list the topics", e));
        }
        record Needed(String key, String role, String topic) {}
        List<Needed> needed = new ArrayList<>();
        requirements
                .inputTopics()
                .forEach(t -> needed.add(new Needed(SourceOptions.TOPICS.key(), "input", t)));
        requirements
                .outputTopic()
                .ifPresent(t -> needed.add(new Needed(KafkaSinkOptions.TOPIC.key(), "output", t)));
        for (Needed n : needed) {
            if (topics.contains(n.topic())) {
                AclOperation operation =
                        n.role().equals("input") ? AclOperation.READ : AclOperation.WRITE;
                try {
                    Optional<Set<AclOperation>> allowed = view.allowedOperations(n.topic());
                    if (allowed.isPresent()
                            && !allowed.get().contains(operation)
                            && !allowed.get().contains(AclOperation.ALL)) {
                        problems.add(
                                PreflightProblems.notAuthorized(
                                        n.key(),
                                        n.topic(),
                                        requirements,
                                        "not authorized to "
                                                + (operation == AclOperation.READ
                                                        ? "read"
                                                        : "write")
                                                + " the "
                                                + n.role()
                                                + " topic '"
                                                + n.topic()
                                                + "' (Describe alone is granted)",
                                        operation,
                                        "--topic " + n.topic(),
                                        "correct " + n.key()));
                    }
                } catch (Exception e) {
                    problems.add(
                            PreflightProblems.failed(
                                    requirements,
                                    "describe the " + n.role() + " topic '" + n.topic() + "'",
                                    e));
                }
                continue;
            }
            boolean mayDescribe;
            try {
                mayDescribe = view.mayDescribe(n.topic());
            } catch (Exception e) {
                problems.add(
                        PreflightProblems.failed(
                                requirements,
                                "describe the " + n.role() + " topic '" + n.topic() + "'",
                                e));
                continue;
            }
            problems.add(
                    mayDescribe
                            ? PreflightProblems.missingTopic(
                                    n.key(), n.role(), n.topic(), requirements)
                            : PreflightProblems.notAuthorizedTopic(
                                    n.key(), n.role(), n.topic(), requirements));
        }

        if (requirements.consumerGroup().isPresent()) {
            String group = requirements.consumerGroup().get();
            try {
                if (!view.mayUseGroup(group)) {
                    problems.add(
                            PreflightProblems.notAuthorized(
                                    SourceOptions.CONSUMER_GROUP.key(),
                                    group,
                                    requirements,
                                    "not authorized to use the consumer group '" + group + "'",
                                    AclOperation.READ,
                                    "--group " + group,
                                    "set "
                                            + SourceOptions.CONSUMER_GROUP.key()
                                            + " to a group it may use"));
                }
            } catch (Exception e) {
                problems.add(
                        PreflightProblems.failed(
                                requirements, "describe the consumer group '" + group + "'", e));
            }
        }
        if (requirements.transactionalIdPrefix().isPresent()) {
            String prefix = requirements.transactionalIdPrefix().get();
            try {
                if (!view.mayUseTransactionalIds(prefix)) {
                    problems.add(
                            PreflightProblems.notAuthorized(
                                    KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX.key(),
                                    prefix,
                                    requirements,
                                    "not authorized to use transactional ids starting with '"
                                            + prefix
                                            + "' (exactly-once writes"
                                            + " need Write and Describe on them)",
                                    AclOperation.WRITE,
                                    "--transactional-id "
                                            + prefix
                                            + " --resource-pattern-type prefixed",
                                    "set "
                                            + KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX.key()
                                            + " to a prefix it may use"));
                }
            } catch (Exception e) {
                problems.add(
                        PreflightProblems.failed(
                                requirements,
                                "describe a transactional id of prefix '" + prefix + "'",
                                e));
            }
        }

        if (requirements.exactlyOnceTransactionTimeout().isPresent()) {
            Duration wanted = requirements.exactlyOnceTransactionTimeout().get();
            OptionalLong brokerMax;
            try {
                brokerMax = view.transactionMaxTimeoutMs();
            } catch (Exception e) {
                if (ExceptionUtils.getRootCause(e) instanceof AuthorizationException) {
                    warnings.accept(
                            "not authorized to read the brokers' transaction.max.timeout.ms (DescribeConfigs"
                                    + " on the cluster): the check of sink.transaction-timeout ("
                                    + TransactionTimeout.format(wanted)
                                    + ") against it is skipped. If it is"
                                    + " longer, the job fails at start with InvalidTxnTimeoutException; a stock broker"
                                    + " allows 15 min.");
                    return problems;
                }
                problems.add(
                        PreflightProblems.failed(
                                requirements,
                                "read the broker setting transaction.max.timeout.ms",
                                e));
                return problems;
            }
            if (brokerMax.isPresent()) {
                TransactionTimeout.checkAgainstBroker(wanted, brokerMax.getAsLong())
                        .ifPresent(
                                f ->
                                        problems.add(
                                                new ConfigProblem(
                                                        KafkaSinkOptions.TRANSACTION_TIMEOUT.key(),
                                                        TransactionTimeout.format(wanted),
                                                        null,
                                                        f.problem(),
                                                        f.fix())));
            }
        }
        return problems;
    }
}
