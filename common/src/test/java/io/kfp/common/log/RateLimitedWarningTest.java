package io.kfp.common.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.SubstituteLogger;

class RateLimitedWarningTest {

    private final Queue<SubstituteLoggingEvent> events = new ConcurrentLinkedQueue<>();
    private final EventRecordingLogger log =
            new EventRecordingLogger(new SubstituteLogger("test", events, false), events);
    private long now = 1_000_000_000L;

    @Test
    void logsTheFirstAndCountsTheRestUntilTenSecondsHavePassed() {
        RateLimitedWarning warning = new RateLimitedWarning(log, () -> now);

        warning.warn("bad line {}", 1);
        now += TimeUnit.SECONDS.toNanos(3);
        warning.warn("bad line {}", 2);
        warning.warn("bad line {}", 3);
        now += TimeUnit.SECONDS.toNanos(7);
        warning.warn("bad line {}", 4);
        now += TimeUnit.SECONDS.toNanos(10);
        warning.warn("bad line {}", 5);

        assertThat(messages())
                .containsExactly(
                        "bad line 1",
                        "bad line 4 (2 more like this in the last 10 s.)",
                        "bad line 5");
    }

    private List<String> messages() {
        List<String> out = new ArrayList<>();
        for (SubstituteLoggingEvent event : events) {
            out.add(
                    MessageFormatter.basicArrayFormat(
                            event.getMessage(), event.getArgumentArray()));
        }
        return out;
    }
}
