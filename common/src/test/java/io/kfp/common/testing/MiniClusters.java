package io.kfp.common.testing;

import io.kfp.common.entry.StreamEnvironments;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The Flink cluster a test class shares: one TaskManager with as many slots as its jobs need,
 * listening on loopback only.
 */
public final class MiniClusters {

    private MiniClusters() {}

    public static MiniClusterExtension withSlots(int slots) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(slots)
                        .setConfiguration(StreamEnvironments.loopbackOnly(new Configuration()))
                        .build());
    }
}
