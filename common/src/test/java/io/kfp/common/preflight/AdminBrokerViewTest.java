package io.kfp.common.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.common.config.ConfigProblem;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The real Admin-backed view against a port where no broker listens. */
class AdminBrokerViewTest {

    @Test
    void aClosedPortIsReportedAsUnreachable() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String servers = "127.0.0.1:" + port;
        Properties connection = new Properties();
        connection.setProperty("bootstrap.servers", servers);
        BrokerPreflight.Requirements requirements =
                new BrokerPreflight.Requirements(
                        servers, List.of("in"), Optional.empty(), Optional.empty());

        List<ConfigProblem> problems =
                BrokerPreflight.run(
                        requirements, connection, Duration.ofMillis(700), AdminBrokerView::new);

        assertThat(problems)
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.key()).isEqualTo("kafka.bootstrap-servers");
                            assertThat(p.problem()).contains("no Kafka broker answered", servers);
                        });
    }
}
