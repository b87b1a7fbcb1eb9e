package io.kfp.common.preflight;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.acl.AclOperation;

/** A broker that answers from fields; a non-null failure is thrown by the matching call. */
final class FakeBroker implements BrokerView {

    Exception pingFailure;
    Exception topicsFailure;
    Exception configFailure;
    Set<String> topics = Set.of("in", "out");

    /** Topics this client may not describe (left out of {@link #topics} by a real broker). */
    Set<String> unauthorized = Set.of();

    OptionalLong transactionMaxTimeoutMs = OptionalLong.of(900_000);
    Map<String, Integer> partitions = new HashMap<>();

    /** Ongoing transactions: id -> start (epoch ms). */
    Map<String, Long> ongoing = new HashMap<>();

    /** What this client may do per topic; a topic not in it: the view cannot tell. */
    Map<String, Set<AclOperation>> allowed = new HashMap<>();

    Set<String> forbiddenGroups = Set.of();
    Set<String> forbiddenPrefixes = Set.of();
    boolean closed;
    int configReads;

    @Override
    public void ping() throws Exception {
        if (pingFailure != null) {
            throw pingFailure;
        }
    }

    @Override
    public Set<String> topicNames() throws Exception {
        if (topicsFailure != null) {
            throw topicsFailure;
        }
        return topics;
    }

    @Override
    public boolean mayDescribe(String topic) {
        return !unauthorized.contains(topic);
    }

    @Override
    public Optional<Set<AclOperation>> allowedOperations(String topic) {
        return Optional.ofNullable(allowed.get(topic));
    }

    @Override
    public boolean mayUseGroup(String group) {
        return !forbiddenGroups.contains(group);
    }

    @Override
    public boolean mayUseTransactionalIds(String prefix) {
        return !forbiddenPrefixes.contains(prefix);
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> names) {
        Map<String, Integer> counts = new HashMap<>();
        names.forEach(n -> counts.put(n, partitions.getOrDefault(n, 1)));
        return counts;
    }

    @Override
    public OptionalLong transactionMaxTimeoutMs() throws Exception {
        configReads++;
        if (configFailure != null) {
            throw configFailure;
        }
        return transactionMaxTimeoutMs;
    }

    @Override
    public Map<String, Long> ongoingTransactions(String prefix) {
        Map<String, Long> matching = new TreeMap<>();
        ongoing.forEach(
                (id, start) -> {
                    if (id.startsWith(prefix)) {
                        matching.put(id, start);
                    }
                });
        return matching;
    }

    @Override
    public void close() {
        closed = true;
    }
}
