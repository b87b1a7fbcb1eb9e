package io.kfp.testkit;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** One embedded Kafka broker per test class, stopped after the class, also when it fails. */
public final class KafkaExtension implements BeforeAllCallback, AfterAllCallback {

    private final Map<String, String> brokerSettings;
    private EmbeddedKafka kafka;

    public KafkaExtension() {
        this(Map.of());
    }

    /** A broker with these settings added to or overriding {@link EmbeddedKafka}'s. */
    public KafkaExtension(Map<String, String> brokerSettings) {
        this.brokerSettings = brokerSettings;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        kafka = EmbeddedKafka.start(Path.of("target", "it-kafka"), brokerSettings);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }
}
