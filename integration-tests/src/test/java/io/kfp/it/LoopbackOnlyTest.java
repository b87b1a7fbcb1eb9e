package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.testing.MiniClusters;
import io.kfp.embedded.EmbeddedFlink;
import io.kfp.embedded.ListeningSockets;
import io.kfp.testkit.EmbeddedKafka;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What {@code ./run-pipeline} and the tests start - the embedded broker (broker and controller
 * listeners), the embedded Flink cluster and the tests' shared one (REST, RPC, blob server) -
 * listens on loopback only, as {@code ss -ltnp} would show: nothing on the machine's other
 * interfaces can reach it.
 */
class LoopbackOnlyTest {

    /** The tests' shared cluster (MiniClusters), listening beside the embedded runner's. */
    @RegisterExtension static final MiniClusterExtension TESTS_CLUSTER = MiniClusters.withSlots(1);

    @Test
    void theEmbeddedBrokerAndClustersListenOnLoopbackOnly() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(Path.of("target", "it-kafka"));
                EmbeddedFlink flink = EmbeddedFlink.start(2, 1)) {
            List<ListeningSockets.Listener> listeners = ListeningSockets.ofThisProcess();
            System.out.println("listening: " + listeners);
            assertThat(listeners.stream().map(ListeningSockets.Listener::port))
                    .as("the broker's and controller's listeners are among them")
                    .containsAll(kafka.ports());
            assertThat(listeners)
                    .as("and REST and the blob server of both clusters")
                    .hasSizeGreaterThanOrEqualTo(6);
            assertThat(listeners)
                    .allSatisfy(l -> assertThat(l.loopbackOnly()).as(l + " is loopback").isTrue());
        }
    }
}
