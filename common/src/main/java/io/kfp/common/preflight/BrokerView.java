package io.kfp.common.preflight;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;

/**
 * What the preflight needs to know about a Kafka cluster. The real one talks to the Admin API
 * ({@link AdminBrokerView}); tests pass their own, so the decisions are tested without a broker.
 * Each call throws when the broker cannot answer in time.
 */
public interface BrokerView extends AutoCloseable {

    /** Returns once the cluster answered a metadata request. */
    void ping() throws Exception;

    /** Names of all topics the client may see. */
    Set<String> topicNames() throws Exception;

    /**
     * Whether this client may describe {@code topic}. A broker leaves a topic the client may not
     * describe out of the topic list, existing or not, so "not listed" alone does not mean "does
     * not exist".
     */
    default boolean mayDescribe(String topic) throws Exception {
        return true;
    }

    /**
     * What this client may do on {@code topic} (which it may describe), as the broker reports it
     * (every operation when the broker has no authorizer); empty when the view cannot tell.
     */
    default Optional<Set<AclOperation>> allowedOperations(String topic) throws Exception {
        return Optional.empty();
    }

    /** Whether this client may use consumer group {@code group} (Describe, which Read implies). */
    default boolean mayUseGroup(String group) throws Exception {
        return true;
    }

    /**
     * Whether this client may use the transactional ids of {@code prefix}: Describe on one of them,
     * which Write implies (the broker has no question that checks Write without using the id).
     */
    default boolean mayUseTransactionalIds(String prefix) throws Exception {
        return true;
    }

    /** Number of partitions of each of {@code topics} (all of which exist). */
    Map<String, Integer> partitionCounts(Collection<String> topics) throws Exception;

    /** The broker's {@code transaction.max.timeout.ms}; empty if it does not report one. */
    OptionalLong transactionMaxTimeoutMs() throws Exception;

    /**
     * The ONGOING transactions whose transactional id starts with {@code prefix}, each with the
     * time it began (epoch ms, -1 when the broker does not say). Only those this client may
     * describe; none when the view cannot tell.
     */
    default Map<String, Long> ongoingTransactions(String prefix) throws Exception {
        return Map.of();
    }

    /**
     * The members of consumer group {@code leaseGroup} ({@link io.kfp.common.kafka.JobLease}), each
     * as "CLIENT-ID on HOST"; empty when it has none or does not exist.
     */
    default List<String> leaseHolders(String leaseGroup) throws Exception {
        return List.of();
    }

    @Override
    void close();
}
