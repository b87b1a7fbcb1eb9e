package io.kfp.bench;

import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The transactional requests the embedded broker (in the harness JVM) has served so far, from its
 * own request metrics ({@code kafka.network:type=RequestMetrics,name=RequestsPerSec,request=...},
 * one meter per request version, summed): what a commit interval costs the broker, whichever client
 * sends them.
 */
final class BrokerRequests {

    /**
     * The requests counted, by index: {@code EndTxn} is one per transaction committed (or aborted);
     * {@code InitProducerId} one per transactional producer (re)initialised, which the relay's
     * {@code incrementing} naming pays each checkpoint; the others complete the transactional
     * requests a client sends (with transactions v2 the broker adds partitions itself).
     */
    static final List<String> COUNTED =
            List.of(
                    "EndTxn",
                    "InitProducerId",
                    "AddPartitionsToTxn",
                    "AddOffsetsToTxn",
                    "TxnOffsetCommit");

    static final int END_TXN = 0;
    static final int INIT_PRODUCER_ID = 1;

    private BrokerRequests() {}

    /** Counts by {@link #COUNTED} index, or null when the broker is not in this JVM. */
    static long[] counts(boolean embedded) {
        if (!embedded) {
            return null;
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        long[] counts = new long[COUNTED.size()];
        try {
            for (int i = 0; i < counts.length; i++) {
                for (ObjectName name :
                        server.queryNames(
                                new ObjectName(
                                        "kafka.network:type=RequestMetrics,name=RequestsPerSec,request="
                                                + COUNTED.get(i)
                                                + ",*"),
                                null)) {
                    counts[i] += ((Number) server.getAttribute(name, "Count")).longValue();
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the embedded broker's request metrics", e);
        }
        return counts;
    }

    /** No request rates: a run without a broker in this JVM, or without a steady middle. */
    static double[] none() {
        return perSecond(null, null, 1);
    }

    /** Requests per second of each kind between two readings; NaNs without a broker in the JVM. */
    static double[] perSecond(long[] from, long[] to, double seconds) {
        double[] rates = new double[COUNTED.size()];
        for (int i = 0; i < rates.length; i++) {
            rates[i] = from == null || to == null ? Double.NaN : (to[i] - from[i]) / seconds;
        }
        return rates;
    }
}
