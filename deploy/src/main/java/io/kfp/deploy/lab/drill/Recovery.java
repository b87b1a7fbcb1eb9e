package io.kfp.deploy.lab.drill;

import java.util.Locale;

/**
 * One fault's recovery: {@code seconds} from the injection until committed output flows on every
 * partition; for a lasting fault (partition, store outage) also {@code afterEndSeconds}, from when
 * it ended (link up, store serving again) - 0 when output flowed again before that -, else NaN.
 *
 * @param atSeconds when the fault was injected, in seconds since the drill started
 */
public record Recovery(Fault fault, double atSeconds, double seconds, double afterEndSeconds) {

    /** {@code afterEndSeconds} to one decimal, or {@code -} for a fault that does not last. */
    String afterEnd() {
        return Double.isNaN(afterEndSeconds)
                ? "-"
                : String.format(Locale.ROOT, "%.1f", afterEndSeconds);
    }
}
