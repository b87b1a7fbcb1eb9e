package io.kfp.common.preflight;

import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import io.kfp.common.config.OptionGroup;
import io.kfp.common.kafka.JobLease;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs a job's user needs, and no more, derived from the job's settings: Read and
 * Describe on each input topic, Read on its consumer group and on the group of its {@link JobLease}
 * (a source); Write, Describe and DescribeConfigs on each topic it writes (a Kafka sink: {@link
 * io.kfp.common.kafka.UnwritableRecords} reads the topic's limits); Write and Describe on
 * TransactionalId with its prefix, PREFIXED, and Read on the groups of its prefix's {@link
 * JobLease}, PREFIXED (an exactly-once sink). Preflight, the source's offset checks and the sink's
 * lost-transaction check need nothing beyond these (reading the brokers' {@code
 * transaction.max.timeout.ms} needs DescribeConfigs on the cluster; without it preflight skips only
 * that check, with a warning).
 *
 * <p>One declaration for the jobs' READMEs, {@code --preflight.print-acls} (and {@code kfp acls})
 * and the tests, which grant exactly these.
 */
public final class RequiredAcls {

    private RequiredAcls() {}

    /**
     * The ACLs {@code principal} (e.g. {@code User:relay}) needs to run a job of these groups and
     * settings.
     */
    public static List<AclBinding> of(
            ReadableConfig config,
            Collection<OptionGroup> groups,
            List<String> extraOutputTopics,
            String principal) {
        List<AclBinding> acls = new ArrayList<>();
        if (groups.contains(SourceOptions.GROUP)) {
            for (String topic : SourceOptions.topics(config)) {
                allow(
                        acls,
                        principal,
                        ResourceType.TOPIC,
                        topic,
                        PatternType.LITERAL,
                        READ,
                        DESCRIBE);
            }
            String group = SourceOptions.groupId(config);
            for (String name : List.of(group, JobLease.groupOf(group))) {
                allow(acls, principal, ResourceType.GROUP, name, PatternType.LITERAL, READ);
            }
        }
        if (groups.contains(KafkaSinkOptions.GROUP)) {
            List<String> outputs = new ArrayList<>();
            config.getOptional(KafkaSinkOptions.TOPIC).ifPresent(outputs::add);
            outputs.addAll(extraOutputTopics);
            for (String topic : outputs) {
                allow(
                        acls,
                        principal,
                        ResourceType.TOPIC,
                        topic,
                        PatternType.LITERAL,
                        WRITE,
                        DESCRIBE,
                        DESCRIBE_CONFIGS);
            }
            if (config.get(KafkaSinkOptions.DELIVERY_GUARANTEE) == DeliveryGuarantee.EXACTLY_ONCE) {
                String prefix = KafkaSinkOptions.transactionalIdPrefix(config);
                allow(
                        acls,
                        principal,
                        ResourceType.TRANSACTIONAL_ID,
                        prefix,
                        PatternType.PREFIXED,
                        WRITE,
                        DESCRIBE);
                // Prefixed: the lease of a second sink's prefix (relay's PREFIX.late) too.
                allow(
                        acls,
                        principal,
                        ResourceType.GROUP,
                        JobLease.prefixOf(prefix),
                        PatternType.PREFIXED,
                        READ);
            }
        }
        return acls;
    }

    /**
     * {@code kafka-acls.sh} lines adding {@code acls}, one per resource; a comment line first when
     * the job reads a topic pattern, whose topics cannot be named here.
     */
    public static List<String> kafkaAclsLines(
            List<AclBinding> acls, ReadableConfig config, String bootstrapServers) {
        List<String> lines = new ArrayList<>();
        config.getOptional(SourceOptions.TOPIC_PATTERN)
                .filter(p -> SourceOptions.topics(config).isEmpty())
                .ifPresent(
                        pattern ->
                                lines.add(
                                        "# source.topic-pattern /"
                                                + pattern
                                                + "/: also Read and Describe on every topic it matches"));
        Map<ResourcePattern, Map<String, List<AclOperation>>> byResource = new LinkedHashMap<>();
        for (AclBinding acl : acls) {
            byResource
                    .computeIfAbsent(acl.pattern(), r -> new LinkedHashMap<>())
                    .computeIfAbsent(acl.entry().principal(), p -> new ArrayList<>())
                    .add(acl.entry().operation());
        }
        byResource.forEach(
                (resource, principals) ->
                        principals.forEach(
                                (principal, operations) ->
                                        lines.add(
                                                "kafka-acls.sh --bootstrap-server "
                                                        + bootstrapServers
                                                        + " --add --allow-principal "
                                                        + principal
                                                        + operations.stream()
                                                                .map(o -> " --operation " + name(o))
                                                                .collect(Collectors.joining())
                                                        + " "
                                                        + resourceFlag(resource))));
        return lines;
    }

    private static String resourceFlag(ResourcePattern resource) {
        String flag =
                switch (resource.resourceType()) {
                    case TOPIC -> "--topic " + resource.name();
                    case GROUP -> "--group " + resource.name();
                    case TRANSACTIONAL_ID -> "--transactional-id " + resource.name();
                    default ->
                            throw new IllegalArgumentException(
                                    "no ACL of a job is on a " + resource.resourceType());
                };
        return resource.patternType() == PatternType.PREFIXED
                ? flag + " --resource-pattern-type prefixed"
                : flag;
    }

    /** As kafka-acls.sh spells an operation: Read, Describe, Write, DescribeConfigs. */
    private static String name(AclOperation operation) {
        StringBuilder name = new StringBuilder();
        for (String word : operation.name().toLowerCase(Locale.ROOT).split("_")) {
            name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        return name.toString();
    }

    private static void allow(
            List<AclBinding> acls,
            String principal,
            ResourceType type,
            String name,
            PatternType pattern,
            AclOperation... operations) {
        for (AclOperation operation : operations) {
            acls.add(allow(principal, type, name, pattern, operation));
        }
    }

    private static AclBinding allow(
            String principal,
            ResourceType type,
            String name,
            PatternType pattern,
            AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }
}
