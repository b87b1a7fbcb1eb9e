package io.kfp.deploy.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Predicate;

/**
 * A job's savepoints and retained checkpoints, newest first, each with why it was taken, by which
 * version, and whether resuming from it could lose records: what {@code kfp savepoints} lists,
 * {@code kfp resume} starts from, {@code kfp submit} refuses to ignore, and retention deletes.
 *
 * <p>A state is <em>too old</em> when the job writes Kafka exactly-once and the state is older than
 * its {@code sink.transaction-timeout}: transactions it had pre-committed but not committed when
 * the job ended have been aborted by the broker since, so resuming from it loses their records. A
 * savepoint of {@code kfp stop} or {@code kfp upgrade} is never too old: its transactions were
 * committed before the job ended.
 */
public final class StateHistory {

    /** One savepoint or retained checkpoint. */
    public record Entry(
            String kind,
            long writtenAt,
            String path,
            String reason,
            String version,
            Duration age,
            boolean tooOld) {

        /** "savepoint, stop, 4 min old". */
        public String describe() {
            return kind
                    + (reason.equals("-") ? "" : ", " + reason)
                    + ", "
                    + StateHistory.age(age)
                    + " old";
        }
    }

    /** 42 s, 21 min, 5 h 41 min, 3 d. */
    public static String age(Duration age) {
        long s = age.toSeconds();
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min";
        }
        if (s < 48 * 3600) {
            return s / 3600 + " h " + (s % 3600) / 60 + " min";
        }
        return s / 86400 + " d";
    }

    /** Reasons whose savepoints committed every transaction before the job ended. */
    private static final List<String> COMMITTED = List.of("stop", "upgrade");

    private final List<Entry> entries;
    private final Duration transactionTimeout;

    /**
     * @param stored what the job's storage holds
     * @param taken why kfp took the savepoints it took ({@link JobJars#savepointsTaken})
     * @param transactionTimeout the job's transaction timeout, null if it writes no transactions
     * @param now the time to measure ages from, epoch millis
     */
    StateHistory(
            List<StoredStates.Stored> stored,
            Map<String, JobJars.Taken> taken,
            Duration transactionTimeout,
            long now) {
        this.transactionTimeout = transactionTimeout;
        List<Entry> list = new ArrayList<>();
        for (StoredStates.Stored s : stored) {
            JobJars.Taken why =
                    taken.getOrDefault(
                            s.path(),
                            new JobJars.Taken(
                                    s.kind().equals(StoredStates.CHECKPOINT) ? "periodic" : "-",
                                    "-"));
            Duration age = Duration.ofMillis(Math.max(0, now - s.writtenAt())).withNanos(0);
            boolean tooOld =
                    transactionTimeout != null
                            && age.compareTo(transactionTimeout) > 0
                            && !COMMITTED.contains(why.reason());
            list.add(
                    new Entry(
                            s.kind(),
                            s.writtenAt(),
                            s.path(),
                            why.reason(),
                            why.version(),
                            age,
                            tooOld));
        }
        list.sort(Comparator.comparingLong(Entry::writtenAt).reversed());
        this.entries = List.copyOf(list);
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The job's transaction timeout, if it writes Kafka exactly-once. */
    public Optional<Duration> transactionTimeout() {
        return Optional.ofNullable(transactionTimeout);
    }

    public Optional<Entry> latest() {
        return entries.stream().findFirst();
    }

    /** The newest state that resumes without loss: what {@code kfp resume} takes. */
    public Optional<Entry> latestSafe() {
        return entries.stream().filter(e -> !e.tooOld()).findFirst();
    }

    /**
     * What retention deletes: every state that is neither among the newest {@code keep} nor younger
     * than {@code keepFor} (each only when given) - never the newest safe one, nor one {@code
     * inUse} (a running job's own checkpoints).
     */
    public List<Entry> beyond(
            OptionalInt keep, Optional<Duration> keepFor, Predicate<Entry> inUse) {
        Optional<Entry> safe = latestSafe();
        List<Entry> delete = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            boolean kept =
                    (keep.isPresent() && i < keep.getAsInt())
                            || (keepFor.isPresent() && e.age().compareTo(keepFor.get()) <= 0)
                            || safe.filter(e::equals).isPresent()
                            || inUse.test(e);
            if (!kept) {
                delete.add(e);
            }
        }
        return delete;
    }
}
