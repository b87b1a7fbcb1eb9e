package io.kfp.deploy.job;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.plugin.PluginUtils;

/**
 * The savepoints and retained checkpoints a job has in its storage - {@code
 * <checkpoint.savepoint-dir>/savepoint-*} and {@code <checkpoint.dir>/<job id>/chk-N}, each with
 * its {@code _metadata} - on whatever file system they are (local disk, S3 through the cluster's
 * plugin). Its {@link #main} runs in a JVM of its own with the cluster's classpath, configuration
 * and plugins, and prints one line per state: kind, written-at millis, path, tab-separated; or,
 * given {@code --delete PATH...}, deletes those states.
 */
public final class StoredStates {

    /** One savepoint or retained checkpoint. */
    public record Stored(String kind, long writtenAt, String path) {
        static Stored parse(String line) {
            String[] fields = line.split("\t", 3);
            return new Stored(fields[0], Long.parseLong(fields[1]), fields[2]);
        }
    }

    static final String SAVEPOINT = "savepoint";
    static final String CHECKPOINT = "checkpoint";

    private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");
    private static final Pattern CHK = Pattern.compile("chk-\\d+");

    private StoredStates() {}

    /**
     * Args: the checkpoint directory, the savepoint directory (both as the job has them); or {@code
     * --delete} and the states to delete.
     */
    public static void main(String[] args) throws IOException {
        String conf = System.getenv("FLINK_CONF_DIR");
        Configuration flink =
                conf == null ? new Configuration() : GlobalConfiguration.loadConfiguration(conf);
        FileSystem.initialize(flink, PluginUtils.createPluginManagerFromRootFolder(flink));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        if (args.length > 0 && args[0].equals("--delete")) {
            for (int i = 1; i < args.length; i++) {
                delete(new Path(args[i]));
                out.println("deleted\t" + args[i]);
            }
            return;
        }
        for (Stored stored : list(new Path(args[0]), new Path(args[1]))) {
            out.println(stored.kind() + "\t" + stored.writtenAt() + "\t" + stored.path());
        }
    }

    static List<Stored> list(Path checkpoints, Path savepoints) throws IOException {
        List<Stored> found = new ArrayList<>();
        for (FileStatus savepoint : children(savepoints)) {
            if (savepoint.getPath().getName().startsWith("savepoint-")) {
                add(found, SAVEPOINT, savepoint.getPath());
            }
        }
        for (FileStatus job : children(checkpoints)) {
            if (JOB_ID.matcher(job.getPath().getName()).matches()) {
                for (FileStatus chk : children(job.getPath())) {
                    if (CHK.matcher(chk.getPath().getName()).matches()) {
                        add(found, CHECKPOINT, chk.getPath());
                    }
                }
            }
        }
        return found;
    }

    /**
     * Deletes a savepoint or a retained checkpoint; with a job's last retained checkpoint, the
     * job's whole checkpoint directory (its {@code shared/} files, which incremental checkpoints
     * reference, belong to no other).
     */
    static void delete(Path state) throws IOException {
        FileSystem fs = state.getFileSystem();
        if (!fs.exists(new Path(state, "_metadata"))) {
            throw new IOException(state + " is no savepoint or checkpoint (it has no _metadata)");
        }
        fs.delete(state, true);
        Path job = state.getParent();
        if (CHK.matcher(state.getName()).matches()
                && JOB_ID.matcher(job.getName()).matches()
                && Arrays.stream(children(job))
                        .noneMatch(c -> CHK.matcher(c.getPath().getName()).matches())) {
            fs.delete(job, true);
        }
    }

    /** Adds {@code dir} if its {@code _metadata} is there: a state being written has none yet. */
    private static void add(List<Stored> found, String kind, Path dir) throws IOException {
        Path metadata = new Path(dir, "_metadata");
        FileSystem fs = metadata.getFileSystem();
        if (fs.exists(metadata)) {
            found.add(
                    new Stored(
                            kind,
                            fs.getFileStatus(metadata).getModificationTime(),
                            dir.toString()));
        }
    }

    private static FileStatus[] children(Path dir) throws IOException {
        FileSystem fs = dir.getFileSystem();
        if (!fs.exists(dir)) {
            return new FileStatus[0];
        }
        FileStatus[] children = fs.listStatus(dir);
        return children == null ? new FileStatus[0] : children;
    }
}
