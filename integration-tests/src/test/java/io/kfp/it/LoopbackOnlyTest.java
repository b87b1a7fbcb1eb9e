package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.testing.MiniClusters;
import io.kfp.embedded.EmbeddedFlink;
import io.kfp.embedded.EmbeddedKafka;
import io.kfp.embedded.ListeningSockets;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Flink cluster {@code ./run-pipeline} and the tests start (REST, RPC, blob server) listens on
 * loopback only, as {@code ss -ltnp} would show: nothing on the machine's other interfaces can
 * reach it. Not yet the embedded broker: Kafka's test kit binds its two listeners on every
 * interface before the broker starts, so they are named here and left out.
 */
class LoopbackOnlyTest {

    /** The tests' shared cluster (MiniClusters), listening beside the embedded runner's. */
    @RegisterExtension
    static final MiniClusterExtension TESTS_CLUSTER = MiniClusters.withSlots(1);

    @Test
    void theEmbeddedFlinkClusterListensOnLoopbackOnly() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(Path.of("target", "it-kafka"));
                EmbeddedFlink flink = EmbeddedFlink.start(2, 1)) {
            List<ListeningSockets.Listener> listeners = ListeningSockets.ofThisProcess();
            List<Integer> broker = kafka.ports();
            System.out.println("listening: " + listeners + "; the broker's: " + broker);
            List<ListeningSockets.Listener> flinks = listeners.stream().filter(l -> !broker.contains(l.port())).toList();
            assertThat(flinks).as("REST and the blob server of both clusters at least").hasSizeGreaterThanOrEqualTo(4);
            assertThat(flinks).allSatisfy(l -> assertThat(l.loopbackOnly()).as(l + " is loopback").isTrue());
        }
    }
}
