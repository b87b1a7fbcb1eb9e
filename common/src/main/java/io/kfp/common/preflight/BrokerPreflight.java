package io.kfp.common.preflight;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.ConfigProblem;
import io.kfp.common.config.JobOptions;
import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.kafka.TransactionTimeout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * Checks, before a job is submitted, that Kafka will accept it: the brokers answer, the topics
 * exist, and an exactly-once sink's transaction timeout is allowed by the brokers. Each failure
 * becomes one message saying what is wrong and how to fix it.
 */
public final class BrokerPreflight {

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(BrokerPreflight.class);

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
            return List.of(clientNotCreated(requirements, e));
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
                    problems.add(failed(requirements, "run the job's own checks", e));
                }
            }
            if (problems.isEmpty()
                    && config != null
                    && requirements.exactlyOnceTransactionTimeout().isPresent()) {
                secondCopyWarning(
                                KafkaSinkOptions.transactionalIdPrefix(config),
                                config.get(CheckpointOptions.INTERVAL),
                                view)
                        .ifPresent(warnings);
                lingeringWarning(config, view).ifPresent(warnings);
            }
            return problems;
        }
    }

    /**
     * A running job begins a transaction of its prefix at every checkpoint, so an ONGOING one that
     * began within the last three checkpoint intervals (at least 30 s) says another copy of this
     * job may be writing right now: same job.name and job.instance-id, two copies would write every
     * record twice and fence each other. Only a warning: the same evidence is left by a job of this
     * prefix that crashed moments ago, whose transactions this one aborts as it starts, and a
     * restart after a crash must still start. Older ONGOING ones are a crashed job's and no sign of
     * a second copy.
     */
    static Optional<String> secondCopyWarning(
            String prefix, Duration checkpointInterval, BrokerView view) {
        Duration recent = recentWindow(checkpointInterval);
        Map<String, Long> open;
        try {
            open = view.ongoingTransactions(prefix);
        } catch (Exception e) {
            return Optional.of(
                    "could not list the open transactions of prefix "
                            + prefix
                            + " ("
                            + e.getMessage()
                            + "): whether another copy of this job is running was not checked.");
        }
        long now = System.currentTimeMillis();
        List<String> young =
                open.entrySet().stream()
                        .filter(e -> e.getValue() >= 0 && now - e.getValue() < recent.toMillis())
                        .map(Map.Entry::getKey)
                        .toList();
        if (young.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                young.size()
                        + (young.size() == 1 ? " transaction" : " transactions")
                        + " of prefix "
                        + prefix
                        + " began less than "
                        + TimeUtils.formatWithHighestUnit(recent)
                        + " ago and "
                        + (young.size() == 1 ? "is" : "are")
                        + " still open ("
                        + String.join(", ", young.subList(0, Math.min(3, young.size())))
                        + (young.size() > 3 ? ", ..." : "")
                        + "): another copy of this job may be running. Two copies would write"
                        + " every record twice and fence each other's transactions: stop one, or give this one its own"
                        + " job.instance-id. If a job of this prefix crashed just now, these are its last transactions and this"
                        + " job aborts them as it starts.");
    }

    /**
     * ONGOING transactions this job will not abort as it starts, yet which hold back every
     * read_committed reader of the partitions they wrote to until they time out: those of another
     * prefix of this job's name (a job.instance-id no longer used) that began longer ago than a
     * running job's would have, and, with pooling naming, those of this prefix whose sink subtask
     * is beyond the job's parallelism (after a downscale; FLINK-40626). A listing that fails is
     * reported by {@link #secondCopyWarning}.
     */
    static Optional<String> lingeringWarning(ReadableConfig config, BrokerView view) {
        String prefix = KafkaSinkOptions.transactionalIdPrefix(config);
        boolean derived = config.getOptional(KafkaSinkOptions.TRANSACTIONAL_ID_PREFIX).isEmpty();
        String scope = derived ? "kfp." + config.get(JobOptions.NAME) + "." : prefix;
        Duration recent = recentWindow(config.get(CheckpointOptions.INTERVAL));
        boolean pooling =
                config.get(KafkaSinkOptions.TRANSACTION_NAMING)
                        == TransactionNamingStrategy.POOLING;
        Optional<Integer> parallelism = config.getOptional(JobOptions.PARALLELISM);
        Map<String, Long> open;
        try {
            open = view.ongoingTransactions(scope);
        } catch (Exception e) {
            return Optional.empty();
        }
        long now = System.currentTimeMillis();
        List<String> lingering = new ArrayList<>();
        open.forEach(
                (id, began) -> {
                    if (began < 0 || now - began < recent.toMillis()) {
                        return;
                    }
                    boolean ours = id.startsWith(prefix + "-");
                    boolean superseded =
                            ours
                                    && pooling
                                    && parallelism.isPresent()
                                    && subtaskOf(id) >= parallelism.get();
                    if (!ours || superseded) {
                        lingering.add(
                                id
                                        + " (open "
                                        + TimeUtils.formatWithHighestUnit(
                                                Duration.ofSeconds((now - began) / 1000))
                                        + (superseded
                                                ? ", of a sink subtask beyond parallelism "
                                                        + parallelism.get()
                                                : "")
                                        + ")");
                    }
                });
        if (lingering.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                lingering.size()
                        + (lingering.size() == 1 ? " transaction" : " transactions")
                        + " this job will not abort "
                        + (lingering.size() == 1 ? "is" : "are")
                        + " still open: "
                        + String.join(", ", lingering.subList(0, Math.min(3, lingering.size())))
                        + (lingering.size() > 3 ? ", ..." : "")
                        + ". Until each times out, read_committed readers of the"
                        + " partitions it wrote to see nothing past it. If no running job uses its prefix any more (an old"
                        + " job.instance-id, a downscale with pooling naming), end it: kafka-transactions.sh"
                        + " --bootstrap-server ... forceTerminateTransaction --transactionalId ID.");
    }

    /**
     * The sink subtask in a connector transactional id (prefix-subtask-counter); -1 if it has none.
     */
    private static int subtaskOf(String transactionalId) {
        String[] parts = transactionalId.split("-");
        try {
            return parts.length < 3 ? -1 : Integer.parseInt(parts[parts.length - 2]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * How young an open transaction of a running job is: three checkpoint intervals, at least 30 s.
     */
    private static Duration recentWindow(Duration checkpointInterval) {
        return max(checkpointInterval.multipliedBy(3), Duration.ofSeconds(30));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
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
                            ? notAuthenticated(requirements, connection, authentication)
                            : unreachable(requirements, timeout, e));
        }

        Set<String> topics;
        try {
            topics = view.topicNames();
        } catch (Exception e) {
            return List.of(failed(requirements, "list the topics", e));
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
                                notAuthorized(
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
                            failed(
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
                        failed(
                                requirements,
                                "describe the " + n.role() + " topic '" + n.topic() + "'",
                                e));
                continue;
            }
            problems.add(
                    mayDescribe
                            ? missingTopic(n.key(), n.role(), n.topic(), requirements)
                            : notAuthorizedTopic(n.key(), n.role(), n.topic(), requirements));
        }

        if (requirements.consumerGroup().isPresent()) {
            String group = requirements.consumerGroup().get();
            try {
                if (!view.mayUseGroup(group)) {
                    problems.add(
                            notAuthorized(
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
                        failed(requirements, "describe the consumer group '" + group + "'", e));
            }
        }
        if (requirements.transactionalIdPrefix().isPresent()) {
            String prefix = requirements.transactionalIdPrefix().get();
            try {
                if (!view.mayUseTransactionalIds(prefix)) {
                    problems.add(
                            notAuthorized(
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
                        failed(
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
                        failed(
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

    private static ConfigProblem missingTopic(
            String key, String role, String topic, Requirements requirements) {
        return new ConfigProblem(
                key,
                topic,
                null,
                "the "
                        + role
                        + " topic '"
                        + topic
                        + "' does not exist on "
                        + requirements.bootstrapServers()
                        + ".",
                "create it, e.g. kafka-topics.sh --bootstrap-server "
                        + requirements.bootstrapServers()
                        + " --create --topic "
                        + topic
                        + " --partitions 4 --replication-factor 1 (or deploy/bin/kfp topics"
                        + " create), or correct "
                        + key
                        + ".");
    }

    private static ConfigProblem notAuthorizedTopic(
            String key, String role, String topic, Requirements requirements) {
        String operations = role.equals("input") ? "Describe and Read" : "Describe and Write";
        return new ConfigProblem(
                key,
                topic,
                null,
                "not authorized to describe the "
                        + role
                        + " topic '"
                        + topic
                        + "' on "
                        + requirements.bootstrapServers()
                        + " (the broker does not say whether it exists).",
                "ask for "
                        + operations
                        + " on it for this job's user, e.g. kafka-acls.sh --bootstrap-server "
                        + requirements.bootstrapServers()
                        + " --add --allow-principal User:<the job's user>"
                        + (role.equals("input")
                                ? " --operation Describe --operation Read"
                                : " --operation Describe --operation Write")
                        + " --topic "
                        + topic
                        + ", or correct "
                        + key
                        + ".");
    }

    /** A right the job's user lacks on a resource it may see: the ACL to add. */
    private static ConfigProblem notAuthorized(
            String key,
            String value,
            Requirements requirements,
            String problem,
            AclOperation operation,
            String resourceFlags,
            String orElse) {
        String name = operation == AclOperation.READ ? "Read" : "Write";
        return new ConfigProblem(
                key,
                value,
                null,
                problem + " on " + requirements.bootstrapServers() + ".",
                "ask for "
                        + name
                        + " on it for this job's user, e.g. kafka-acls.sh --bootstrap-server "
                        + requirements.bootstrapServers()
                        + " --add --allow-principal User:<the job's user> --operation "
                        + name
                        + (operation == AclOperation.WRITE ? " --operation Describe" : "")
                        + " "
                        + resourceFlags
                        + " (--preflight.print-acls User:NAME prints all the job needs), or "
                        + orElse
                        + ".");
    }

    private static ConfigProblem unreachable(
            Requirements requirements, Duration timeout, Exception e) {
        return new ConfigProblem(
                KafkaClientOptions.BOOTSTRAP_SERVERS.key(),
                requirements.bootstrapServers(),
                null,
                "no Kafka broker answered within "
                        + TimeUtils.formatWithHighestUnit(timeout)
                        + " (tried "
                        + requirements.bootstrapServers()
                        + "): "
                        + describe(e)
                        + ".",
                "check kafka.bootstrap-servers, that the brokers run and that this machine can"
                        + " reach them (security settings go in kafka.properties.*); raise"
                        + " preflight.timeout for a slow network.");
    }

    /**
     * The broker refused this client's login: a wrong password, an unknown user or mechanism, or a
     * TLS handshake that failed. Names the mechanism, the user and the servers - never the
     * password: the user is read from a literal {@code sasl.jaas.config}; one that comes from a
     * config provider is named by its reference.
     */
    private static ConfigProblem notAuthenticated(
            Requirements requirements, Properties connection, AuthenticationException e) {
        String protocol =
                connection.getProperty(
                        CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
                        CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL);
        String mechanism =
                connection.getProperty(
                        SaslConfigs.SASL_MECHANISM, SaslConfigs.DEFAULT_SASL_MECHANISM);
        String jaas = connection.getProperty(SaslConfigs.SASL_JAAS_CONFIG, "");
        Matcher literal = JAAS_USERNAME.matcher(jaas);
        Matcher reference = CONFIG_REFERENCE.matcher(jaas);
        String user =
                literal.find() && !literal.group(1).contains("${")
                        ? "user '" + literal.group(1) + "'"
                        : reference.find()
                                ? "the user of " + reference.group()
                                : "the configured user";
        String property = KafkaClientOptions.PROPERTIES_PREFIX;
        if (e instanceof SslAuthenticationException || !protocol.startsWith("SASL")) {
            return new ConfigProblem(
                    property + CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
                    protocol,
                    null,
                    "the TLS handshake with "
                            + requirements.bootstrapServers()
                            + " failed ("
                            + protocol
                            + "): "
                            + describe(e)
                            + ".",
                    "check that "
                            + property
                            + "ssl.truststore.location holds the CA that signed the brokers'"
                            + " certificates and that the servers' names match them.");
        }
        return new ConfigProblem(
                property + SaslConfigs.SASL_JAAS_CONFIG,
                null,
                null,
                "the brokers "
                        + requirements.bootstrapServers()
                        + " refused the login of "
                        + user
                        + " with "
                        + mechanism
                        + " over "
                        + protocol
                        + ": "
                        + describe(e)
                        + ".",
                "check the password of that user in "
                        + property
                        + SaslConfigs.SASL_JAAS_CONFIG
                        + " (or the file it references), that the user exists on the brokers for "
                        + mechanism
                        + " (kafka-configs.sh --bootstrap-server ... --describe --entity-type users), and "
                        + property
                        + SaslConfigs.SASL_MECHANISM
                        + ".");
    }

    private static final Pattern JAAS_USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

    /** A config provider's reference, {@code ${file:/path:key}}: no secret, only where one is. */
    private static final Pattern CONFIG_REFERENCE = Pattern.compile("\\$\\{[^}\\s\"]*}");

    private static ConfigProblem clientNotCreated(Requirements requirements, Exception e) {
        return new ConfigProblem(
                KafkaClientOptions.BOOTSTRAP_SERVERS.key(),
                requirements.bootstrapServers(),
                null,
                "could not create a Kafka client for these servers: " + describe(e) + ".",
                "check kafka.bootstrap-servers (host names must resolve) and the client settings in"
                        + " kafka.properties.* (security.protocol, sasl.*, ssl.* files and"
                        + " passwords).");
    }

    private static ConfigProblem failed(Requirements requirements, String what, Exception e) {
        Throwable cause = ExceptionUtils.getRootCause(e);
        String fix =
                cause instanceof AuthorizationException
                        ? "grant this client Describe on the cluster and topics, or pass"
                                + " --preflight.skip to submit without these checks (the transaction"
                                + " timeout then goes unchecked)."
                        : "check the broker logs; to submit without these checks pass"
                                + " --preflight.skip.";
        return new ConfigProblem(
                KafkaClientOptions.BOOTSTRAP_SERVERS.key(),
                requirements.bootstrapServers(),
                null,
                "could not " + what + ": " + describe(e) + ".",
                fix);
    }

    /**
     * Says what went wrong by the innermost cause: Kafka wraps the telling one in "Failed to create
     * ..." ones.
     */
    private static String describe(Throwable e) {
        Throwable cause = ExceptionUtils.getRootCause(e);
        if (cause instanceof TimeoutException
                || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "timed out";
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
