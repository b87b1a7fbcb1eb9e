package io.kfp.deploy.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@TalksToCluster
@Command(
        name = "taskmanager",
        mixinStandardHelpOptions = true,
        description = "One TaskManager (e.g. to replace a crashed one).")
final class TaskManagerCommand extends KfpCommand {
    @Command(name = "start", description = "Start TaskManager N (resource id tm-N).")
    void start(@Parameters(paramLabel = "N", description = "its number") int n) {
        ctx().cluster().startTaskManager(n);
    }

    @Command(name = "stop", description = "Stop TaskManager N by its PID.")
    void stop(@Parameters(paramLabel = "N", description = "its number") int n) {
        ctx().cluster().stopTaskManager(n);
    }
}
