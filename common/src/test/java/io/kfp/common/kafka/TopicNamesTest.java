package io.kfp.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicNamesTest {

    @Test
    void kafkasOwnRuleDecides() {
        assertThat(TopicNames.isValid("lines")).isTrue();
        assertThat(TopicNames.isValid("a.b_c-9")).isTrue();
        assertThat(TopicNames.isValid("x".repeat(249))).isTrue();
        assertThat(TopicNames.isValid("x".repeat(250))).as("longer than Kafka's 249").isFalse();
        assertThat(TopicNames.isValid("")).isFalse();
        assertThat(TopicNames.isValid("a b")).isFalse();
        assertThat(TopicNames.isValid("t\u00e9")).isFalse();
        // What the former regex let through and Kafka refuses:
        assertThat(TopicNames.isValid(".")).isFalse();
        assertThat(TopicNames.isValid("..")).isFalse();
    }
}
