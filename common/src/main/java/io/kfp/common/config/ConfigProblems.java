package io.kfp.common.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects every bad setting before anything is reported, so a user fixes all of them in one go
 * instead of one per run.
 */
public final class ConfigProblems {

    private final RawConfig raw;
    private final List<ConfigProblem> problems = new ArrayList<>();

    public ConfigProblems(RawConfig raw) {
        this.raw = raw;
    }

    /** Reports a problem with {@code key}, quoting the value and origin the user gave it. */
    public void add(String key, String problem, String fix) {
        RawConfig.Entry entry = raw.entry(key);
        String value = entry == null ? null : SecretRedaction.redact(key, entry.value());
        String origin = entry == null ? null : entry.origin();
        String shownKey = entry == null || entry.writtenAs() == null ? key : entry.writtenAs();
        problems.add(new ConfigProblem(shownKey, value, origin, problem, fix));
    }

    /** Reports a problem that is not about a value the user gave (e.g. a missing required key). */
    public void addMissing(String key, String problem, String fix) {
        problems.add(new ConfigProblem(key, null, null, problem, fix));
    }

    public boolean isEmpty() {
        return problems.isEmpty();
    }

    public List<ConfigProblem> asList() {
        return List.copyOf(problems);
    }
}
