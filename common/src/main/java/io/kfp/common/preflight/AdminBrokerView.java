package io.kfp.common.preflight;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** A {@link BrokerView} backed by the Kafka Admin API, every call bounded by one deadline. */
public final class AdminBrokerView implements BrokerView {

    private final Admin admin;
    private final long deadlineNanos;

    /**
     * @param connection bootstrap servers and pass-through client properties
     * @param timeout total time all calls together may take
     */
    public AdminBrokerView(Properties connection, Duration timeout) {
        Properties props = new Properties();
        props.putAll(connection);
        int timeoutMs = (int) Math.max(100, timeout.toMillis());
        props.setProperty(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeoutMs));
        props.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeoutMs));
        props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "kfp-preflight");
        this.deadlineNanos = System.nanoTime() + timeout.toNanos();
        this.admin = Admin.create(props);
    }

    @Override
    public void ping() throws Exception {
        admin.describeCluster().nodes().get(remainingMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public Set<String> topicNames() throws Exception {
        return admin.listTopics().names().get(remainingMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean mayDescribe(String topic) throws Exception {
        try {
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(remainingMs(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                return false;
            }
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return true;
            }
            throw e;
        }
    }

    @Override
    public Optional<Set<AclOperation>> allowedOperations(String topic) throws Exception {
        Set<AclOperation> allowed =
                admin.describeTopics(
                                List.of(topic),
                                new DescribeTopicsOptions().includeAuthorizedOperations(true))
                        .allTopicNames()
                        .get(remainingMs(), TimeUnit.MILLISECONDS)
                        .get(topic)
                        .authorizedOperations();
        return Optional.ofNullable(allowed);
    }

    @Override
    public boolean mayUseGroup(String group) throws Exception {
        try {
            admin.describeConsumerGroups(List.of(group))
                    .all()
                    .get(remainingMs(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupAuthorizationException) {
                return false;
            }
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return true; // a first start: the broker, having checked the ACL, says it has no
                // such group yet
            }
            throw e;
        }
    }

    @Override
    public List<String> leaseHolders(String leaseGroup) throws Exception {
        try {
            return admin
                    .describeConsumerGroups(List.of(leaseGroup))
                    .all()
                    .get(Math.max(remainingMs(), 5000), TimeUnit.MILLISECONDS)
                    .get(leaseGroup)
                    .members()
                    .stream()
                    .map(m -> m.clientId() + " on " + m.host())
                    .sorted()
                    .toList();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return List.of();
            }
            throw e;
        }
    }

    @Override
    public boolean mayUseTransactionalIds(String prefix) throws Exception {
        try {
            // An id of the prefix no subtask uses: asking about it changes nothing on the broker.
            admin.describeTransactions(List.of(prefix + "-preflight"))
                    .all()
                    .get(remainingMs(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdAuthorizationException) {
                return false;
            }
            if (e.getCause() instanceof TransactionalIdNotFoundException) {
                return true;
            }
            throw e;
        }
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics) throws Exception {
        Map<String, Integer> counts = new LinkedHashMap<>();
        admin.describeTopics(topics)
                .allTopicNames()
                .get(remainingMs(), TimeUnit.MILLISECONDS)
                .forEach((name, description) -> counts.put(name, description.partitions().size()));
        return counts;
    }

    @Override
    public Map<String, Long> ongoingTransactions(String prefix) throws Exception {
        List<String> ids =
                admin
                        .listTransactions(
                                new ListTransactionsOptions()
                                        .filterStates(List.of(TransactionState.ONGOING)))
                        .all()
                        .get(remainingMs(), TimeUnit.MILLISECONDS)
                        .stream()
                        .map(TransactionListing::transactionalId)
                        .filter(id -> id.startsWith(prefix))
                        .sorted()
                        .toList();
        Map<String, Long> began = new LinkedHashMap<>();
        if (!ids.isEmpty()) {
            admin.describeTransactions(ids)
                    .all()
                    .get(remainingMs(), TimeUnit.MILLISECONDS)
                    .forEach(
                            (id, d) -> {
                                if (d.state() == TransactionState.ONGOING) {
                                    began.put(id, d.transactionStartTimeMs().orElse(-1));
                                }
                            });
        }
        return began;
    }

    @Override
    public OptionalLong transactionMaxTimeoutMs() throws Exception {
        Collection<Node> nodes =
                admin.describeCluster().nodes().get(remainingMs(), TimeUnit.MILLISECONDS);
        if (nodes.isEmpty()) {
            return OptionalLong.empty();
        }
        // Brokers should agree; the smallest one is the one that would refuse us.
        long smallest = Long.MAX_VALUE;
        for (Node node : nodes) {
            ConfigResource broker =
                    new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(node.id()));
            Config config =
                    admin.describeConfigs(List.of(broker))
                            .all()
                            .get(remainingMs(), TimeUnit.MILLISECONDS)
                            .get(broker);
            ConfigEntry entry = config == null ? null : config.get("transaction.max.timeout.ms");
            if (entry != null && entry.value() != null) {
                smallest = Math.min(smallest, Long.parseLong(entry.value()));
            }
        }
        return smallest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(smallest);
    }

    private long remainingMs() {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
