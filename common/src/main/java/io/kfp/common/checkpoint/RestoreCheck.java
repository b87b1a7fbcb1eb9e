package io.kfp.common.checkpoint;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.plugin.PluginUtils;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;

/**
 * Whether a savepoint or retained checkpoint restores into a job graph, decided before anything is
 * stopped or submitted, by Flink's own rules at restore: each operator state with content must find
 * an operator of the same id (the hash of its uid) in the graph, at the same max parallelism unless
 * the graph leaves it unset. State without a home would fail the start, or be dropped under
 * checkpoint.allow-non-restored-state.
 *
 * <p>It reads only the {@code _metadata} file: it does not compare state names or types inside an
 * operator.
 */
public final class RestoreCheck {

    /** An operator state of the savepoint, as the verdict names it. */
    public record Operator(String uid, String name, String id, long bytes) {
        /** Its uid, else its name, else its id: what a user recognizes. */
        public String describe() {
            String what = uid != null ? "uid " + uid : name != null ? name : "operator " + id;
            return what + " (" + bytes + " bytes of state)";
        }
    }

    /**
     * @param restored operator states that find their operator
     * @param dropped operator states with content and no operator of their id in the graph
     * @param problems what else would fail the restore (max parallelism)
     */
    public record Verdict(
            String path, List<Operator> restored, List<Operator> dropped, List<String> problems) {

        public boolean restores() {
            return dropped.isEmpty() && problems.isEmpty();
        }

        /** The verdict as printed: one line per finding. */
        public List<String> lines(String job) {
            List<String> lines = new ArrayList<>();
            if (restores()) {
                lines.add(
                        path
                                + " restores into "
                                + job
                                + ": every operator state ("
                                + restored.size()
                                + ") has its operator.");
                return lines;
            }
            lines.add(path + " does not restore into " + job + ":");
            for (Operator o : dropped) {
                lines.add(
                        "  - state of "
                                + o.describe()
                                + " has no operator of that uid in "
                                + job
                                + ": it would be dropped");
            }
            problems.forEach(p -> lines.add("  - " + p));
            lines.add(
                    "Give the operator its uid back (uids are part of the savepoint format), or drop"
                            + " its state on purpose with "
                            + CheckpointOptions.ALLOW_NON_RESTORED_STATE.key()
                            + ".");
            return lines;
        }
    }

    private RestoreCheck() {}

    /** Checks the savepoint or retained checkpoint at {@code path} against {@code graph}. */
    public static Verdict check(String path, JobGraph graph) throws IOException {
        initializeFileSystems();
        String checked = newestIfSubsumed(FaultTolerance.location(path));
        return check(checked, load(checked), graph);
    }

    /**
     * {@code path} if it exists; for a retained checkpoint ({@code .../chk-N}) that a newer one
     * subsumed and deleted meanwhile, the newest {@code chk-M} beside it: asked for the latest
     * checkpoint of a running job, the answer may be a few seconds old.
     */
    static String newestIfSubsumed(String path) throws IOException {
        Path location = new Path(path);
        FileSystem fs = location.getFileSystem();
        Matcher chk = CHECKPOINT.matcher(location.getName());
        if (fs.exists(location) || !chk.matches()) {
            return path;
        }
        long newest = -1;
        Path found = null;
        FileStatus[] siblings = fs.listStatus(location.getParent());
        for (FileStatus sibling : siblings == null ? new FileStatus[0] : siblings) {
            Matcher other = CHECKPOINT.matcher(sibling.getPath().getName());
            if (other.matches()
                    && Long.parseLong(other.group(1)) > newest
                    && fs.exists(new Path(sibling.getPath(), "_metadata"))) {
                newest = Long.parseLong(other.group(1));
                found = sibling.getPath();
            }
        }
        return found != null && newest > Long.parseLong(chk.group(1)) ? found.toString() : path;
    }

    private static final Pattern CHECKPOINT = Pattern.compile("chk-(\\d+)");

    static Verdict check(String path, CheckpointMetadata metadata, JobGraph graph) {
        Map<OperatorID, JobVertex> vertexOf = new HashMap<>();
        for (JobVertex vertex : graph.getVertices()) {
            for (OperatorIDPair ids : vertex.getOperatorIDs()) {
                vertexOf.put(ids.getGeneratedOperatorID(), vertex);
                ids.getUserDefinedOperatorID().ifPresent(id -> vertexOf.put(id, vertex));
            }
        }
        List<Operator> restored = new ArrayList<>();
        List<Operator> dropped = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (OperatorState state : metadata.getOperatorStates()) {
            Operator operator =
                    new Operator(
                            state.getOperatorUid().orElse(null),
                            state.getOperatorName().orElse(null),
                            state.getOperatorID().toHexString(),
                            state.getStateSize());
            JobVertex vertex = vertexOf.get(state.getOperatorID());
            if (vertex == null) {
                if (hasContent(state)) {
                    dropped.add(operator);
                }
                continue;
            }
            restored.add(operator);
            int configured = vertex.getMaxParallelism();
            if (configured != JobVertex.MAX_PARALLELISM_DEFAULT
                    && configured != state.getMaxParallelism()) {
                problems.add(
                        "state of "
                                + operator.describe()
                                + " was written at max parallelism "
                                + state.getMaxParallelism()
                                + ", the job sets "
                                + configured
                                + ": keyed state cannot move between the two; keep "
                                + state.getMaxParallelism());
            }
        }
        return new Verdict(path, restored, dropped, problems);
    }

    /** Flink's test at restore: coordinator state, or any subtask with a state handle. */
    private static boolean hasContent(OperatorState state) {
        if (state.getCoordinatorState() != null) {
            return true;
        }
        for (OperatorSubtaskState subtask : state.getStates()) {
            if (subtask.hasState()) {
                return true;
            }
        }
        return false;
    }

    /** Flink's file systems, plugins included (S3 on a cluster), as the cluster configures them. */
    private static void initializeFileSystems() {
        String conf = System.getenv("FLINK_CONF_DIR");
        Configuration flink =
                conf == null ? new Configuration() : GlobalConfiguration.loadConfiguration(conf);
        FileSystem.initialize(flink, PluginUtils.createPluginManagerFromRootFolder(flink));
    }

    /**
     * Reads the {@code _metadata} of the savepoint or checkpoint at {@code path} (its directory or
     * the file).
     */
    static CheckpointMetadata load(String path) throws IOException {
        String location = FaultTolerance.location(path);
        CompletedCheckpointStorageLocation stored =
                AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(location);
        try (DataInputStream in =
                new DataInputStream(stored.getMetadataHandle().openInputStream())) {
            return Checkpoints.loadCheckpointMetadata(
                    in, RestoreCheck.class.getClassLoader(), location);
        }
    }
}
