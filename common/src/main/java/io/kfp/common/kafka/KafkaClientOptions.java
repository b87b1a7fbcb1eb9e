package io.kfp.common.kafka;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.DidYouMean;
import io.kfp.common.config.OptionGroup;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * How to reach Kafka: bootstrap servers plus any client property (security, timeouts, ...) passed
 * through unchanged to the source, the sink and the preflight's admin client alike.
 */
public final class KafkaClientOptions implements OptionGroup {

    public static final KafkaClientOptions GROUP = new KafkaClientOptions();

    public static final String PROPERTIES_PREFIX = "kafka.properties.";

    private static final Pattern HOST_PORT = Pattern.compile("[^\\s:,]+:\\d{1,5}");

    /**
     * Client properties that one of our typed options sets. Passing them through would silently
     * override the option, so it is an error that names the option to use instead.
     */
    static final Map<String, String> OWNED_BY_OPTIONS =
            Map.ofEntries(
                    Map.entry(
                            CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                            "kafka.bootstrap-servers"),
                    Map.entry(ConsumerConfig.GROUP_ID_CONFIG, "source.group-id"),
                    Map.entry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "source.isolation-level"),
                    Map.entry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "source.auto-commit"),
                    Map.entry(
                            ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG,
                            "source.auto-commit-interval"),
                    Map.entry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "source.offset-reset"),
                    Map.entry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "source.max-poll-records"),
                    Map.entry(
                            KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key(),
                            "source.commit-offsets-on-checkpoint"),
                    Map.entry(
                            KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(),
                            "source.partition-discovery-interval"),
                    Map.entry(
                            ProducerConfig.TRANSACTIONAL_ID_CONFIG, "sink.transactional-id-prefix"),
                    Map.entry(
                            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "sink.transaction-timeout"),
                    Map.entry(ProducerConfig.BATCH_SIZE_CONFIG, "sink.batch-size"),
                    Map.entry(ProducerConfig.LINGER_MS_CONFIG, "sink.linger"),
                    Map.entry(ProducerConfig.BUFFER_MEMORY_CONFIG, "sink.buffer-memory"),
                    Map.entry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "(set by the job)"),
                    Map.entry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "(set by the job)"),
                    Map.entry(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, "(set by the job)"),
                    Map.entry(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, "(set by the job)"));

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            key("kafka.bootstrap-servers")
                    .stringType()
                    .defaultValue("localhost:9092")
                    .withFallbackKeys(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)
                    .withDescription(
                            "Comma-separated host:port list of Kafka brokers to bootstrap from.");

    private KafkaClientOptions() {}

    @Override
    public String title() {
        return "Kafka connection";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(BOOTSTRAP_SERVERS);
    }

    @Override
    public List<PassThroughPrefix> passThroughPrefixes() {
        return List.of(
                new PassThroughPrefix(
                        PROPERTIES_PREFIX,
                        "Any Kafka client property, for the source, the sink and the preflight alike, e.g."
                                + " --kafka.properties.security.protocol SASL_SSL. Secrets are never printed; keep them"
                                + " in a file with a config provider (see the README)."));
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        String servers = config.get(BOOTSTRAP_SERVERS);
        for (String server : servers.split(",")) {
            if (!HOST_PORT.matcher(server.trim()).matches()) {
                problems.add(
                        BOOTSTRAP_SERVERS.key(),
                        "'" + server.trim() + "' is not host:port.",
                        "write a comma-separated list such as broker1:9092,broker2:9092.");
                break;
            }
        }
        clientProperties(config)
                .stringPropertyNames()
                .forEach(
                        name -> {
                            String owner = OWNED_BY_OPTIONS.get(name);
                            Optional<String> meant = misspelt(name);
                            if (meant.isPresent()) {
                                problems.add(
                                        PROPERTIES_PREFIX + name,
                                        "is not a Kafka producer, consumer or admin client setting.",
                                        "did you mean '" + PROPERTIES_PREFIX + meant.get() + "'?");
                            } else if (owner != null) {
                                problems.add(
                                        PROPERTIES_PREFIX + name,
                                        "this client property is set by the job itself.",
                                        owner.startsWith("(")
                                                ? "remove it."
                                                : "remove it and set " + owner + " instead.");
                            }
                        });
    }

    /** Every setting Kafka's producer, consumer and admin client know. */
    private static final Set<String> KAFKA_CLIENT_SETTINGS = kafkaClientSettings();

    private static Set<String> kafkaClientSettings() {
        Set<String> names = new TreeSet<>(ProducerConfig.configNames());
        names.addAll(ConsumerConfig.configNames());
        names.addAll(AdminClientConfig.configNames());
        return Set.copyOf(names);
    }

    /**
     * The client setting an unknown name is a typo of (at most two letters off). Names further from
     * every known one may belong to a plugin (a config provider's, a login module's) and are passed
     * on; Kafka itself logs them as "supplied but isn't a known config".
     */
    static Optional<String> misspelt(String name) {
        if (KAFKA_CLIENT_SETTINGS.contains(name) || name.startsWith("config.providers.")) {
            return Optional.empty();
        }
        return DidYouMean.typoOf(name, KAFKA_CLIENT_SETTINGS, 2);
    }

    /** The pass-through client properties ({@code kafka.properties.*}, prefix removed). */
    public static Properties clientProperties(ReadableConfig config) {
        Properties properties = new Properties();
        config.toMap()
                .forEach(
                        (k, v) -> {
                            if (k.startsWith(PROPERTIES_PREFIX)
                                    && k.length() > PROPERTIES_PREFIX.length()) {
                                properties.setProperty(k.substring(PROPERTIES_PREFIX.length()), v);
                            }
                        });
        return properties;
    }

    /** Bootstrap servers plus the pass-through properties: what every client of ours gets. */
    public static Properties connectionProperties(ReadableConfig config) {
        Properties properties = clientProperties(config);
        properties.setProperty(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.get(BOOTSTRAP_SERVERS));
        return properties;
    }
}
