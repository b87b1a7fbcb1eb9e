package io.kfp.ops.verify;

import java.time.Duration;

/**
 * Copy reports made by hand for deploy's tests, which print and judge them: only the verifier
 * builds them in production, so their builder is open to its own package alone.
 */
public final class CopyReports {
    private CopyReports() {}

    /** {@code records} in each topic, each input record once in the output. */
    public static CopyReport exactlyOnce(String from, String to, long records) {
        CopyReport.Builder builder = new CopyReport.Builder(from, to, 3);
        builder.read(false, records);
        builder.read(true, records);
        builder.matched(records);
        return builder.build(Duration.ofSeconds(2));
    }

    /** Like {@link #exactlyOnce}, with the output holding one record a second time. */
    public static CopyReport oneDuplicated(String from, String to, long records) {
        CopyReport.Builder builder = new CopyReport.Builder(from, to, 3);
        builder.read(false, records);
        builder.read(true, records + 1);
        builder.matched(records - 1);
        builder.duplicated(() -> to + "-0@7");
        return builder.build(Duration.ofSeconds(2));
    }
}
