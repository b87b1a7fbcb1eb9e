package io.kfp.common.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting on a condition instead of a fixed sleep: the one loop every module's tests use. */
public final class Conditions {

    private Conditions() {}

    /** Polls {@code condition} every 100 ms; fails after {@code timeout} with {@code what}. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}
