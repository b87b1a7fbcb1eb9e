package io.kfp.common.preflight;

import io.kfp.common.config.ConfigProblem;
import io.kfp.common.kafka.KafkaClientOptions;
import io.kfp.common.preflight.BrokerPreflight.Requirements;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * The messages preflight fails with: each names what is wrong (a topic, a right, the login, the
 * brokers), the setting behind it, and what to do.
 */
final class PreflightProblems {

    private PreflightProblems() {}

    static ConfigProblem missingTopic(
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

    static ConfigProblem notAuthorizedTopic(
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
    static ConfigProblem notAuthorized(
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

    static ConfigProblem unreachable(Requirements requirements, Duration timeout, Exception e) {
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
    static ConfigProblem notAuthenticated(
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

    static ConfigProblem clientNotCreated(Requirements requirements, Exception e) {
        return new ConfigProblem(
                KafkaClientOptions.BOOTSTRAP_SERVERS.key(),
                requirements.bootstrapServers(),
                null,
                "could not create a Kafka client for these servers: " + describe(e) + ".",
                "check kafka.bootstrap-servers (host names must resolve) and the client settings in"
                        + " kafka.properties.* (security.protocol, sasl.*, ssl.* files and"
                        + " passwords).");
    }

    static ConfigProblem failed(Requirements requirements, String what, Exception e) {
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
