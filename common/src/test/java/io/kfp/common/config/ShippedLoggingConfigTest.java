package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Objects;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;

/** The shipped log4j2 config shows our INFO, and WARN+ from Flink and Kafka. */
class ShippedLoggingConfigTest {

    @Test
    void ourCodeAtInfoFrameworksAtWarn() throws Exception {
        URI config =
                Objects.requireNonNull(getClass().getResource("/kfp-log4j2.properties")).toURI();
        try (LoggerContext context = Configurator.initialize("shipped-config-test", null, config)) {
            assertThat(context.getLogger("io.kfp.relay.RelayJob").getLevel()).isEqualTo(Level.INFO);
            assertThat(context.getLogger("org.apache.flink.runtime.taskmanager.Task").getLevel())
                    .isEqualTo(Level.WARN);
            assertThat(
                            context.getLogger("org.apache.kafka.clients.producer.KafkaProducer")
                                    .getLevel())
                    .isEqualTo(Level.WARN);
            assertThat(
                            context.getLogger("org.apache.kafka.clients.producer.KafkaProducer")
                                    .isEnabled(Level.ERROR))
                    .isTrue();
        }
    }
}
