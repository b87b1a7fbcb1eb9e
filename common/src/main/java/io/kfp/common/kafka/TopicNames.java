package io.kfp.common.kafka;

import org.apache.kafka.common.internals.Topic;

/**
 * Whether a topic name is one Kafka accepts, by Kafka's own rule ({@link Topic#isValid}: 1-249
 * letters, digits, '.', '_' or '-', and not "." or ".."), so a job refuses a bad name before it
 * starts instead of failing at its first write. The options' messages say it in one phrase.
 */
public final class TopicNames {

    /** What a valid name is made of, for the fix part of a message. */
    public static final String RULE = "use 1-249 letters, digits, '.', '_' or '-'";

    private TopicNames() {}

    public static boolean isValid(String name) {
        return Topic.isValid(name);
    }
}
