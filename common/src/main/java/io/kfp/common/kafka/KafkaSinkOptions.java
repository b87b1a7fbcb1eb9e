package io.kfp.common.kafka;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.kfp.common.checkpoint.CheckpointOptions;
import io.kfp.common.config.ConfigProblems;
import io.kfp.common.config.ConfigValidator;
import io.kfp.common.config.JobOptions;
import io.kfp.common.config.OptionGroup;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;

/** What a job writes to Kafka and with which guarantee. */
public final class KafkaSinkOptions implements OptionGroup {

    public static final KafkaSinkOptions GROUP = new KafkaSinkOptions();

    /**
     * What the sink does when a restored transaction turns out aborted or forgotten by the broker.
     */
    public enum LostTransactions {
        /** Stop the job without restarts, naming the transaction and the ways out. */
        FAIL,
        /** Log a warning, count it in kfpLostTransactions and go on without those records. */
        ACCEPT;
    }

    public static final ConfigOption<String> TOPIC =
            key("sink.topic").stringType().noDefaultValue().withDescription("Topic to write to.");

    public static final ConfigOption<Boolean> SHARED_TOPIC =
            key("sink.shared-topic")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "true when other jobs write sink.topic too, on purpose: kfp refuses"
                                    + " two jobs writing one topic unless each of them says so.");

    public static final ConfigOption<DeliveryGuarantee> DELIVERY_GUARANTEE =
            key("sink.delivery-guarantee")
                    .enumType(DeliveryGuarantee.class)
                    .defaultValue(DeliveryGuarantee.EXACTLY_ONCE)
                    .withDescription(
                            "exactly-once: records are written in Kafka transactions committed"
                                    + " when a checkpoint completes (visible to read_committed"
                                    + " consumers only then); at-least-once: flushed at every"
                                    + " checkpoint, replays after a failure may duplicate; none:"
                                    + " records in flight at a failure are lost.");

    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX =
            key("sink.transactional-id-prefix")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Prefix of the Kafka transactional ids (exactly-once). Must be unique"
                                    + " per running job on a Kafka cluster and stable across"
                                    + " restarts, or transactions of another job are aborted."
                                    + " Unset: kfp.<job.name>.<job.instance-id>.");

    public static final ConfigOption<Duration> TRANSACTION_TIMEOUT =
            key("sink.transaction-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(15))
                    .withDescription(
                            "Producer transaction.timeout.ms (exactly-once): at most the broker's transaction.max.timeout.ms and longer than a checkpoint takes, both checked before start. A job down longer than this loses its last pre-committed transaction.");

    public static final ConfigOption<TransactionNamingStrategy> TRANSACTION_NAMING =
            key("sink.transaction-naming")
                    .enumType(TransactionNamingStrategy.class)
                    .defaultValue(TransactionNamingStrategy.INCREMENTING)
                    .withDescription(
                            "incrementing: a new transactional id per checkpoint; pooling: reuse a small pool of ids (fewer producer ids on the broker; see the README for its caveats).");

    public static final ConfigOption<LostTransactions> LOST_TRANSACTIONS =
            key("sink.lost-transactions")
                    .enumType(LostTransactions.class)
                    .defaultValue(LostTransactions.FAIL)
                    .withDescription(
                            "Exactly-once: what to do when a restored transaction can no longer be committed (the job was down longer than sink.transaction-timeout). fail: stop without restarts, naming it; accept: warn, count it in kfpLostTransactions and go on without its records.");

    public static final ConfigOption<SinkPartitioner> PARTITIONER =
            key("sink.partitioner")
                    .enumType(SinkPartitioner.class)
                    .defaultValue(SinkPartitioner.KAFKA)
                    .withDescription(
                            "kafka: Kafka's default (hash of the key, keyless records spread); fixed: sink subtask i writes partition i mod n; round-robin: every record to the next partition.");

    public static final ConfigOption<Boolean> WRITE_TIMESTAMPS =
            key("sink.write-timestamps")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Write each record's Flink timestamp as the Kafka record timestamp."
                                    + " Off: the producer stamps the send time.");

    public static final ConfigOption<UnwritableRecords.Policy> UNWRITABLE_RECORDS =
            key("sink.unwritable-records")
                    .enumType(UnwritableRecords.Policy.class)
                    .defaultValue(UnwritableRecords.Policy.FAIL)
                    .withDeprecatedKeys("relay.oversized-records")
                    .withDescription(
                            "A record Kafka refuses for good: larger than the producer's max.request.size or the output topic's max.message.bytes, or stamped outside the topic's message.timestamp.before/after.max.ms (read at each start). fail: end the job without restarting, naming the record, the limit and the fix; skip: leave it out, count it (unwritableRecordsSkipped) and log it.");

    public static final ConfigOption<MemorySize> BATCH_SIZE =
            key("sink.batch-size")
                    .memoryType()
                    .defaultValue(MemorySize.parse("64 kb"))
                    .withDescription(
                            "Producer batch.size: the most bytes gathered per partition before a request is sent (Kafka's default is 16 KiB).");

    public static final ConfigOption<Duration> LINGER =
            key("sink.linger")
                    .durationType()
                    .defaultValue(Duration.ofMillis(5))
                    .withDescription(
                            "Producer linger.ms: how long a batch may wait to fill before it is"
                                    + " sent; adds at most this much latency. 0 sends at once"
                                    + " (more, smaller requests).");

    public static final ConfigOption<MemorySize> BUFFER_MEMORY =
            key("sink.buffer-memory")
                    .memoryType()
                    .defaultValue(MemorySize.parse("8 mb"))
                    .withDescription(
                            "Producer buffer.memory: the most bytes of records waiting to be sent or acknowledged; when full, the job waits. Must hold one sink.batch-size per partition written at once (Kafka's default is 32 MiB).");

    private static final int MAX_BATCH_BYTES = 1024 * 1024;

    private KafkaSinkOptions() {}

    @Override
    public String title() {
        return "Kafka sink";
    }

    @Override
    public List<ConfigOption<?>> options() {
        return List.of(
                TOPIC,
                SHARED_TOPIC,
                DELIVERY_GUARANTEE,
                TRANSACTIONAL_ID_PREFIX,
                TRANSACTION_TIMEOUT,
                TRANSACTION_NAMING,
                LOST_TRANSACTIONS,
                PARTITIONER,
                WRITE_TIMESTAMPS,
                UNWRITABLE_RECORDS,
                BATCH_SIZE,
                LINGER,
                BUFFER_MEMORY);
    }

    @Override
    public void validate(ReadableConfig config, ConfigProblems problems) {
        String topic = config.getOptional(TOPIC).orElse("");
        if (topic.isBlank()) {
            problems.addMissing(TOPIC.key(), "no output topic set.", "set --sink.topic my-topic.");
        } else if (!TopicNames.isValid(topic)) {
            problems.add(TOPIC.key(), "not a valid Kafka topic name.", TopicNames.RULE + ".");
        }
        config.getOptional(TRANSACTIONAL_ID_PREFIX)
                .filter(p -> !JobOptions.isSafeName(p))
                .ifPresent(
                        p ->
                                problems.add(
                                        TRANSACTIONAL_ID_PREFIX.key(),
                                        "only letters, digits, '.', '_' and '-' are allowed.",
                                        "use e.g. kfp.relay-job.eu-1, or remove it for the"
                                                + " default."));
        try {
            if (maxRequestSize(config) < 1) {
                problems.add(
                        MAX_REQUEST_SIZE,
                        "must be positive.",
                        "use e.g. 1048576 (Kafka's default, 1 MiB).");
            }
        } catch (NumberFormatException e) {
            problems.add(
                    MAX_REQUEST_SIZE,
                    "is not a whole number of bytes.",
                    "use e.g. 1048576 (Kafka's default, 1 MiB).");
        }
        long batch = config.get(BATCH_SIZE).getBytes();
        if (batch < 1 || batch > MAX_BATCH_BYTES) {
            problems.add(
                    BATCH_SIZE.key(),
                    "must be between 1 byte and 1 mb: a batch travels in one request, and requests"
                            + " above 1 MiB exceed the producer's max.request.size and the broker's"
                            + " message.max.bytes defaults.",
                    "use e.g. 64 kb (the default).");
        }
        long buffer = config.get(BUFFER_MEMORY).getBytes();
        if (buffer < batch) {
            problems.add(
                    BUFFER_MEMORY.key(),
                    "is "
                            + config.get(BUFFER_MEMORY)
                            + ", less than one batch (sink.batch-size is "
                            + config.get(BATCH_SIZE)
                            + "): the producer could not allocate a single batch"
                            + " and would fail on the first record.",
                    "use e.g. 8 mb (the default), or lower sink.batch-size.");
        }
        Duration linger = config.get(LINGER);
        if (linger.isNegative() || linger.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            problems.add(
                    LINGER.key(),
                    "must be 0 or more, and below 24 days.",
                    "use e.g. 5 ms (the default).");
        }
        refuseWeakerSettings(config, problems);
        if (config.get(DELIVERY_GUARANTEE) != DeliveryGuarantee.EXACTLY_ONCE) {
            return;
        }
        if (!config.get(CheckpointOptions.ENABLED)) {
            problems.add(
                    DELIVERY_GUARANTEE.key(),
                    "exactly-once commits its transactions when checkpoints complete, and"
                            + " checkpoint.enabled is false: nothing would ever become visible.",
                    "turn checkpointing on, or use sink.delivery-guarantee=at-least-once.");
        } else if (config.get(CheckpointOptions.MODE) != CheckpointingMode.EXACTLY_ONCE) {
            problems.add(
                    DELIVERY_GUARANTEE.key(),
                    "exactly-once needs aligned checkpoints, and checkpoint.mode is "
                            + ConfigValidator.text(config.get(CheckpointOptions.MODE))
                            + ": replays after a failure would write duplicates.",
                    "set checkpoint.mode=exactly-once, or sink.delivery-guarantee=at-least-once.");
        } else {
            TransactionTimeout.checkAgainstCheckpointing(
                            config.get(TRANSACTION_TIMEOUT),
                            config.get(CheckpointOptions.INTERVAL),
                            CheckpointOptions.minPause(config),
                            config.get(CheckpointOptions.TIMEOUT),
                            config.get(CheckpointOptions.TOLERABLE_FAILURES))
                    .ifPresent(
                            problem ->
                                    problems.add(
                                            TRANSACTION_TIMEOUT.key(),
                                            problem.problem(),
                                            problem.fix()));
        }
    }

    /**
     * Settings that quietly break the guarantee the sink promises: refused, never overridden. A
     * broker acknowledges with {@code acks} 0 or 1 before the record is replicated, so a leader's
     * failure loses what the sink was told is written; transactions need the idempotent producer; a
     * source reading uncommitted records relays the upstream transactions that were aborted.
     */
    private static void refuseWeakerSettings(ReadableConfig config, ConfigProblems problems) {
        DeliveryGuarantee guarantee = config.get(DELIVERY_GUARANTEE);
        if (guarantee == DeliveryGuarantee.NONE) {
            return;
        }
        String promise = ConfigValidator.text(guarantee);
        Properties client = KafkaClientOptions.clientProperties(config);
        String acks = client.getProperty(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !acks.trim().equals("all") && !acks.trim().equals("-1")) {
            problems.add(
                    KafkaClientOptions.PROPERTIES_PREFIX + ProducerConfig.ACKS_CONFIG,
                    "the broker acknowledges a record before its replicas have it, so a leader's"
                            + " failure loses records sink.delivery-guarantee="
                            + promise
                            + " promises are written.",
                    "remove it (the producer's default is acks=all), or use"
                            + " sink.delivery-guarantee=none.");
        }
        String idempotence = client.getProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE
                && idempotence != null
                && idempotence.trim().equalsIgnoreCase("false")) {
            problems.add(
                    KafkaClientOptions.PROPERTIES_PREFIX + ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    "sink.delivery-guarantee=exactly-once writes in transactions, and a"
                            + " transactional producer must be idempotent.",
                    "remove it (the default is true), or use"
                            + " sink.delivery-guarantee=at-least-once.");
        }
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE
                && config.getOptional(SourceOptions.ISOLATION_LEVEL).orElse(null)
                        == IsolationLevel.READ_UNCOMMITTED) {
            problems.add(
                    SourceOptions.ISOLATION_LEVEL.key(),
                    "the source would read records of upstream transactions that are later"
                            + " aborted, and this job would write them exactly once: records that"
                            + " never existed downstream of an exactly-once pipeline.",
                    "remove it (read-committed is the default), or use"
                            + " sink.delivery-guarantee=at-least-once.");
        }
    }

    /** Kafka's default {@code max.request.size}: 1 MiB. */
    public static final int DEFAULT_MAX_REQUEST_SIZE = 1024 * 1024;

    /**
     * What a record takes in a request besides its key and value (batch and record headers), at
     * most.
     */
    public static final int RECORD_OVERHEAD_BYTES = 128;

    private static final String MAX_REQUEST_SIZE =
            KafkaClientOptions.PROPERTIES_PREFIX + ProducerConfig.MAX_REQUEST_SIZE_CONFIG;

    /**
     * The producer's {@code max.request.size}: {@code kafka.properties.max.request.size}, else
     * Kafka's default. A record larger than that can never be sent.
     */
    public static int maxRequestSize(ReadableConfig config) {
        String value =
                KafkaClientOptions.clientProperties(config)
                        .getProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        return value == null ? DEFAULT_MAX_REQUEST_SIZE : Integer.parseInt(value.trim());
    }

    /** The transactional id prefix: as configured, or derived from the job's identity. */
    public static String transactionalIdPrefix(ReadableConfig config) {
        return config.getOptional(TRANSACTIONAL_ID_PREFIX)
                .orElseGet(() -> JobOptions.qualifiedName(config));
    }
}
