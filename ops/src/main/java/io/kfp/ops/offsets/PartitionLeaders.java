package io.kfp.ops.offsets;

import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Whether topics just created can take writes: every partition has a leader. */
public final class PartitionLeaders {

    private PartitionLeaders() {}

    /**
     * Whether every partition of {@code topics} has a leader; a topic the broker does not know yet
     * (created, its metadata not in the broker's cache yet) has none.
     *
     * @throws ExecutionException for any other error of the describe call, as the client gave it
     */
    public static boolean allLed(Admin admin, Collection<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        try {
            return admin
                    .describeTopics(topics)
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .values()
                    .stream()
                    .flatMap(d -> d.partitions().stream())
                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false;
            }
            throw e;
        }
    }
}
