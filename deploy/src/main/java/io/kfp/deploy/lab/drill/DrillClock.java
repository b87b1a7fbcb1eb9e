package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.Processes;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * The drill's time line: the seconds since it started, the lines it prints stamped with them, and
 * its waits, each with a deadline and said when it took seconds, so a slow drill shows where its
 * time went.
 */
final class DrillClock {
    private final PrintStream out;
    private final long started = System.nanoTime();

    DrillClock(PrintStream out) {
        this.out = out;
    }

    /** Seconds since the drill started. */
    double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    void say(String line) {
        out.printf(Locale.ROOT, "[%6.1f s] %s%n", seconds(), line);
        out.flush();
    }

    /** Waits for {@code condition}, polled every 100 ms; past {@code timeout} the drill fails. */
    void await(String what, Duration timeout, BooleanSupplier condition) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new KfpException(
                        "drill: timed out after " + timeout.toSeconds() + " s waiting for " + what,
                        KfpException.FAILED);
            }
            Processes.sleep(Duration.ofMillis(100));
        }
        sayLongWait(start, what);
    }

    /** Says a wait that began at {@code startNanos} if it took 2 s or more. */
    void sayLongWait(long startNanos, String what) {
        double waited = (System.nanoTime() - startNanos) / 1e9;
        if (waited >= 2) {
            say(String.format(Locale.ROOT, "  waited %.1f s for %s", waited, what));
        }
    }
}
