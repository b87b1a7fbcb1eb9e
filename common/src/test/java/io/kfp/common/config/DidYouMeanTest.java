package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DidYouMeanTest {

    private static final List<String> KEYS =
            List.of("checkpoint.interval", "checkpoint.timeout", "sink.topic", "source.topics");

    @Test
    void suggestsTheClosestKeyForATypo() {
        assertThat(DidYouMean.suggest("checkpoint.intervall", KEYS))
                .contains("checkpoint.interval");
        assertThat(DidYouMean.suggest("sink.topik", KEYS)).contains("sink.topic");
        assertThat(DidYouMean.suggest("CHECKPOINT_TIMEOUT", KEYS)).contains("checkpoint.timeout");
    }

    @Test
    void suggestsTheKeyWhoseLastPartWasTyped() {
        assertThat(DidYouMean.suggest("interval", KEYS)).contains("checkpoint.interval");
    }

    @Test
    void staysQuietWhenNothingIsClose() {
        assertThat(DidYouMean.suggest("parallelism", KEYS)).isEmpty();
    }

    @Test
    void distanceIsLevenshtein() {
        assertThat(DidYouMean.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(DidYouMean.distance("", "abc")).isEqualTo(3);
        assertThat(DidYouMean.distance("same", "same")).isZero();
    }
}
