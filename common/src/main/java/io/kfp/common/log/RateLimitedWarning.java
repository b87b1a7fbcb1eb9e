package io.kfp.common.log;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * At most one warning of a kind every 10 s, saying how many like it were suppressed since: a bad
 * input that repeats on every record must not flood the log, nor vanish from it. One instance per
 * kind of warning and thread (not thread-safe; in a Flink function, create it in {@code open}).
 * log4j2's BurstFilter would drop the suppressed ones without counting them.
 */
public final class RateLimitedWarning {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private final LongSupplier nanoTime;
    private long lastNanos;
    private long suppressed;

    public RateLimitedWarning(Logger log) {
        this(log, System::nanoTime);
    }

    RateLimitedWarning(Logger log, LongSupplier nanoTime) {
        this.log = log;
        this.nanoTime = nanoTime;
        this.lastNanos = nanoTime.getAsLong() - INTERVAL_NANOS;
    }

    /**
     * Logs {@code format} (SLF4J's {} placeholders) now, or counts it if one was logged less than
     * 10 s ago.
     */
    public void warn(String format, Object... args) {
        long now = nanoTime.getAsLong();
        if (now - lastNanos < INTERVAL_NANOS) {
            suppressed++;
            return;
        }
        lastNanos = now;
        if (suppressed > 0) {
            Object[] all = Arrays.copyOf(args, args.length + 1);
            all[args.length] = suppressed;
            log.warn(format + " ({} more like this in the last 10 s.)", all);
        } else {
            log.warn(format, args);
        }
        suppressed = 0;
    }
}
