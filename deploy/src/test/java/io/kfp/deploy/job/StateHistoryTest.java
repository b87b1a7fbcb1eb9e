package io.kfp.deploy.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** What resume starts from, what submit refuses to ignore, and what retention deletes. */
class StateHistoryTest {

    static final long NOW = 1_000_000_000_000L;
    static final Duration TIMEOUT = Duration.ofMinutes(15);

    static StoredStates.Stored stored(String kind, Duration age, String path) {
        return new StoredStates.Stored(kind, NOW - age.toMillis(), path);
    }

    static final StoredStates.Stored CHECKPOINT_NEW =
            stored("checkpoint", Duration.ofMinutes(1), "/c/aaaa/chk-9");
    static final StoredStates.Stored STOP_OLD =
            stored("savepoint", Duration.ofHours(3), "/s/savepoint-stop");
    static final StoredStates.Stored CHECKPOINT_OLD =
            stored("checkpoint", Duration.ofHours(2), "/c/bbbb/chk-4");
    static final StoredStates.Stored MANUAL_OLD =
            stored("savepoint", Duration.ofDays(3), "/s/savepoint-manual");

    static final Map<String, JobJars.Taken> TAKEN =
            Map.of("/s/savepoint-stop", new JobJars.Taken("stop", "0.1.0+abc"));

    static StateHistory history(Duration timeout, StoredStates.Stored... stored) {
        return new StateHistory(List.of(stored), TAKEN, timeout, NOW);
    }

    @Test
    void newestFirstEachWithWhyAndWhetherItIsTooOld() {
        StateHistory h = history(TIMEOUT, MANUAL_OLD, CHECKPOINT_OLD, CHECKPOINT_NEW, STOP_OLD);
        assertThat(h.entries())
                .extracting(
                        StateHistory.Entry::path,
                        StateHistory.Entry::reason,
                        StateHistory.Entry::tooOld)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("/c/aaaa/chk-9", "periodic", false),
                        org.assertj.core.groups.Tuple.tuple("/c/bbbb/chk-4", "periodic", true),
                        // kfp stop committed its transactions: never too old
                        org.assertj.core.groups.Tuple.tuple("/s/savepoint-stop", "stop", false),
                        org.assertj.core.groups.Tuple.tuple("/s/savepoint-manual", "-", true));
        assertThat(h.entries().get(2).describe()).isEqualTo("savepoint, stop, 3 h 0 min old");
        assertThat(h.entries().get(3).describe()).isEqualTo("savepoint, 3 d old");
    }

    @Test
    void resumeTakesTheNewestStateThatLosesNothing() {
        assertThat(history(TIMEOUT, CHECKPOINT_OLD, STOP_OLD).latestSafe())
                .map(StateHistory.Entry::path)
                .hasValue("/s/savepoint-stop");
        assertThat(history(TIMEOUT, CHECKPOINT_OLD, MANUAL_OLD).latestSafe()).isEmpty();
        assertThat(history(TIMEOUT, CHECKPOINT_OLD, MANUAL_OLD).latest())
                .map(StateHistory.Entry::path)
                .hasValue("/c/bbbb/chk-4");
        // A job that writes no transactions (a console sink, at-least-once) loses nothing by age.
        assertThat(history(null, CHECKPOINT_OLD, MANUAL_OLD).latestSafe())
                .map(StateHistory.Entry::path)
                .hasValue("/c/bbbb/chk-4");
        assertThat(history(TIMEOUT).latest()).isEmpty();
    }

    @Test
    void retentionKeepsTheNewestTheYoungTheSafeAndWhatARunningJobUses() {
        StateHistory h = history(TIMEOUT, MANUAL_OLD, CHECKPOINT_OLD, CHECKPOINT_NEW, STOP_OLD);
        assertThat(h.beyond(OptionalInt.of(1), Optional.empty(), e -> false))
                .extracting(StateHistory.Entry::path)
                .containsExactly("/c/bbbb/chk-4", "/s/savepoint-stop", "/s/savepoint-manual");
        assertThat(h.beyond(OptionalInt.empty(), Optional.of(Duration.ofHours(4)), e -> false))
                .extracting(StateHistory.Entry::path)
                .containsExactly("/s/savepoint-manual");
        // Either rule keeps a state.
        assertThat(h.beyond(OptionalInt.of(3), Optional.of(Duration.ofMinutes(30)), e -> false))
                .extracting(StateHistory.Entry::path)
                .containsExactly("/s/savepoint-manual");
        assertThat(h.beyond(OptionalInt.of(1), Optional.empty(), e -> e.path().contains("/bbbb/")))
                .extracting(StateHistory.Entry::path)
                .containsExactly("/s/savepoint-stop", "/s/savepoint-manual");

        // All too old but the stop savepoint: that one stays even beyond --keep 1.
        StateHistory old = history(TIMEOUT, MANUAL_OLD, CHECKPOINT_OLD, STOP_OLD);
        assertThat(old.beyond(OptionalInt.of(1), Optional.empty(), e -> false))
                .extracting(StateHistory.Entry::path)
                .containsExactly("/s/savepoint-manual");
    }
}
