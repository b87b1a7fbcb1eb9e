package io.kfp.deploy.lab.drill;

import io.kfp.ops.verify.CopyReport;
import java.util.List;

/**
 * What the observer saw while the faults happened, what kfp verify finds in the topics afterwards
 * ({@code copy}, null when it could not check them), and what Alertmanager showed during each store
 * outage ({@code alerts}: none when monitoring does not run).
 */
public record DrillResult(
        long produced,
        long distinct,
        long duplicates,
        long missing,
        long misordered,
        long strangers,
        long ongoingTransactions,
        long lsoBehindHighWatermark,
        long failedJobs,
        CopyReport copy,
        List<Recovery> recoveries,
        List<AlertCheck> alerts) {

    /**
     * Whether the output is exactly once: the observer's count and kfp verify's byte-for-byte check
     * agree, nothing is left open and no job failed.
     */
    public boolean clean() {
        return distinct == produced
                && duplicates == 0
                && missing == 0
                && misordered == 0
                && strangers == 0
                && ongoingTransactions == 0
                && lsoBehindHighWatermark == 0
                && failedJobs == 0
                && copy != null
                && copy.clean()
                && copy.matched() == produced;
    }

    /** Exactly once, and every alert checked fired and was resolved: the drill's exit code 0. */
    public boolean passed() {
        return clean() && alerts.stream().allMatch(AlertCheck::ok);
    }
}
