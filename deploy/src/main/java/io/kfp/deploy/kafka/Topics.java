package io.kfp.deploy.kafka;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.ops.offsets.PartitionLeaders;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Creates the topics the jobs' configs name, through Kafka's Admin API. */
public final class Topics {

    public static final int PARTITIONS = 4;

    private final KfpSettings settings;
    private final String bootstrap;
    private final PrintStream out;

    public Topics(KfpSettings settings, PrintStream out) {
        this.settings = settings;
        this.bootstrap = settings.bootstrap();
        this.out = out;
    }

    /**
     * The Admin client kfp uses for everything it asks Kafka (as its admin user on the secure
     * broker): calls give up after 30 s.
     */
    public static Admin admin(KfpSettings settings) {
        return admin(settings, Duration.ofSeconds(30));
    }

    /** The same client, its calls giving up after {@code timeout}. */
    public static Admin admin(KfpSettings settings, Duration timeout) {
        Properties props = settings.kafkaClient();
        props.setProperty(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                String.valueOf(timeout.toMillis()));
        props.setProperty(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                String.valueOf(Math.min(timeout.toMillis(), 30_000)));
        return Admin.create(props);
    }

    /**
     * The answer to an Admin call, or a KfpException that says what kfp asked Kafka to do and why
     * it did not.
     */
    public static <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted while waiting to " + what, KfpException.FAILED, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new KfpException(
                        "Kafka did not answer when asked to "
                                + what
                                + " ("
                                + cause.getMessage()
                                + ")",
                        KfpException.FAILED,
                        cause);
            }
            throw new KfpException(
                    "Kafka refused to "
                            + what
                            + ": "
                            + cause
                            + (cause instanceof UnknownTopicOrPartitionException
                                    ? " (kfp topics create makes the jobs' topics)"
                                    : ""),
                    KfpException.FAILED,
                    cause);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new KfpException(
                    "Kafka did not answer within 60 s when asked to " + what,
                    KfpException.FAILED,
                    e);
        }
    }

    /** Creates each missing topic, then waits until every partition has a leader. */
    public void create(Set<String> topics, int partitions, short replicationFactor) {
        try (Admin admin = admin(settings)) {
            for (String topic : new LinkedHashSet<>(topics)) {
                try {
                    NewTopic newTopic = new NewTopic(topic, partitions, replicationFactor);
                    if (replicationFactor > 1) {
                        // acks=all then means two copies: one broker may die without losing a
                        // write.
                        newTopic.configs(
                                Map.of(
                                        TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                                        String.valueOf(replicationFactor - 1)));
                    }
                    admin.createTopics(List.of(newTopic)).all().get(30, TimeUnit.SECONDS);
                    out.println(
                            "created "
                                    + topic
                                    + " ("
                                    + partitions
                                    + " partitions"
                                    + (replicationFactor > 1
                                            ? ", "
                                                    + replicationFactor
                                                    + " replicas, min.insync.replicas "
                                                    + (replicationFactor - 1)
                                            : "")
                                    + ")");
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new KfpException(
                                "could not create topic "
                                        + topic
                                        + " on "
                                        + bootstrap
                                        + ": "
                                        + e.getCause().getMessage(),
                                KfpException.FAILED,
                                e);
                    }
                    out.println("exists  " + topic);
                }
            }
            // Producers that meet a partition before its leader is in place can fail badly.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!allLed(admin, topics)) {
                if (System.nanoTime() > deadline) {
                    throw new KfpException(
                            "partitions of "
                                    + topics
                                    + " have no leader after 30 s; see the broker's log (kfp logs kafka).",
                            KfpException.FAILED);
                }
                Processes.sleep(Duration.ofMillis(100));
            }
        } catch (java.util.concurrent.TimeoutException e) {
            throw new KfpException(
                    "Kafka at "
                            + bootstrap
                            + " did not answer within 30 s: is it running? ('kfp kafka status')",
                    KfpException.FAILED,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted", KfpException.FAILED, e);
        }
    }

    /** Whether every partition has a leader; a topic the broker does not know yet has none. */
    private boolean allLed(Admin admin, Set<String> topics)
            throws InterruptedException, java.util.concurrent.TimeoutException {
        try {
            return PartitionLeaders.allLed(admin, topics);
        } catch (ExecutionException e) {
            throw new KfpException(
                    "could not describe "
                            + topics
                            + " on "
                            + bootstrap
                            + ": "
                            + e.getCause().getMessage(),
                    KfpException.FAILED,
                    e);
        }
    }
}
