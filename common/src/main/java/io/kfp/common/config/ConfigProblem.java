package io.kfp.common.config;

/**
 * One bad setting: which key, the value given (already redacted if secret), where it came from,
 * what is wrong with it and what to do instead.
 */
public record ConfigProblem(String key, String value, String origin, String problem, String fix) {

    /** One human-readable line, e.g. {@code checkpoint.interval = "5x" (command line): ...}. */
    public String describe() {
        StringBuilder line = new StringBuilder(key);
        if (value != null) {
            line.append(" = \"").append(value).append('"');
        }
        if (origin != null) {
            line.append(" (").append(origin).append(')');
        }
        line.append(": ").append(problem);
        if (fix != null && !fix.isBlank()) {
            line.append(" Fix: ").append(fix);
        }
        return line.toString();
    }
}
