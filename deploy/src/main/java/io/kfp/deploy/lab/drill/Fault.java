package io.kfp.deploy.lab.drill;

import io.kfp.common.config.ConfigValidator;
import io.kfp.deploy.KfpException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/** A fault the drill injects into the lab, named on the command line by its {@link #label()}. */
public enum Fault {
    KILL_LEADER_BROKER("kill -9 of the broker leading most output partitions"),
    KILL_COORDINATOR("kill -9 of the transaction coordinator of the relay's transactional ids"),
    ROLLING_RESTART("graceful restart of every broker, one at a time"),
    KILL_LEADER_JOBMANAGER("kill -9 of the leading JobManager (the standby takes over)"),
    KILL_TASKMANAGER("kill -9 of a TaskManager running the relay"),
    PARTITION_TASKMANAGER(
            "20 s network partition of the host of a TaskManager running the relay", true),
    PARTITION_LEADER_BROKER(
            "20 s network partition of the host of the broker leading most partitions", true),
    S3_OUTAGE(
            "the S3 store stopped for 30 s (with monitoring, until the checkpoint alert fires),"
                    + " then started again",
            true),
    RESCALE_UP("stop with a savepoint, resume at parallelism 3"),
    RESCALE_DOWN("stop with a savepoint, resume at parallelism 1"),
    UPGRADE("kfp upgrade: state checked, a savepoint on the store, the built jar from it"),
    FAILED_UPGRADE("kfp upgrade to a version whose checkpoints fail (no such bucket): rolled back");

    /**
     * The whole matrix. Each fault waits only for what it needs of the lab ({@link LabDrill}
     * prepares it), and the order lets what one fault killed come back while the next one, which
     * does not need it, runs: the killed leader broker catches up (20-40 s here) during the S3
     * outage, the replacement of the killed TaskManager registers (25-60 s) during the broker
     * partition and the rescales. Not beside a fault that restarts the relay: a broker still
     * starting slowed the relay's restart after a TaskManager partition from 18.8 s to 33.1 s (its
     * producers bootstrapped against it). The TaskManager kill, whose target is the tightest, finds
     * the whole lab in sync.
     */
    public static final List<Fault> MATRIX =
            List.of(
                    KILL_LEADER_BROKER,
                    S3_OUTAGE,
                    KILL_COORDINATOR,
                    ROLLING_RESTART,
                    PARTITION_TASKMANAGER,
                    KILL_LEADER_JOBMANAGER,
                    KILL_TASKMANAGER,
                    PARTITION_LEADER_BROKER,
                    RESCALE_UP,
                    RESCALE_DOWN,
                    UPGRADE,
                    FAILED_UPGRADE);

    final String description;

    /**
     * Whether the fault lasts (the drill waits it out before healing it), so output may flow again
     * during it.
     */
    final boolean outage;

    Fault(String description) {
        this(description, false);
    }

    Fault(String description, boolean outage) {
        this.description = description;
        this.outage = outage;
    }

    public String label() {
        return ConfigValidator.text(this);
    }

    /** The labels of the matrix, in its order. */
    public static Set<String> labels() {
        return MATRIX.stream()
                .map(Fault::label)
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /** {@code count} faults drawn at random from the matrix (the soak). */
    public static List<Fault> random(int count, long seed) {
        Random random = new Random(seed);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            faults.add(MATRIX.get(random.nextInt(MATRIX.size())));
        }
        return faults;
    }

    /** {@code matrix} or a comma-separated list of labels, as {@code --faults} takes them. */
    public static List<Fault> parse(String list) {
        if (list.equals("matrix")) {
            return MATRIX;
        }
        List<Fault> faults = new ArrayList<>();
        for (String name : list.split(",")) {
            try {
                faults.add(valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw new KfpException(
                        "unknown fault '"
                                + name
                                + "': use matrix or some of "
                                + Arrays.stream(values())
                                        .map(Fault::label)
                                        .collect(Collectors.joining(", ")));
            }
        }
        return faults;
    }
}
