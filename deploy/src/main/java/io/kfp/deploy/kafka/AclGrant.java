package io.kfp.deploy.kafka;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.tools.AclCommand;

/**
 * Runs {@code kafka-acls.sh} lines with Kafka's own AclCommand, all in one JVM (one JVM each would
 * cost a second or two per line), for {@code kfp acls JOB --grant}. AclCommand ends the JVM with
 * exit code 1 on the first line that fails, after printing why.
 *
 * <p>Arguments: the admin client settings file ({@code --command-config}), then one argument per
 * line ({@code kafka-acls.sh --bootstrap-server ... --add ...}). It runs on Kafka's classpath.
 */
public final class AclGrant {

    public static final String KAFKA_ACLS = "kafka-acls.sh ";

    private AclGrant() {}

    public static void main(String[] args) {
        for (String line : List.of(args).subList(1, args.length)) {
            AclCommand.main(arguments(line, args[0]).toArray(String[]::new));
        }
    }

    /**
     * AclCommand's arguments for one printed line: its words after kafka-acls.sh, and the admin's
     * settings.
     */
    static List<String> arguments(String line, String commandConfig) {
        if (!line.startsWith(KAFKA_ACLS)) {
            throw new IllegalArgumentException("not a kafka-acls.sh line: " + line);
        }
        List<String> arguments =
                new ArrayList<>(List.of(line.substring(KAFKA_ACLS.length()).trim().split(" +")));
        arguments.addAll(List.of("--command-config", commandConfig));
        return arguments;
    }
}
