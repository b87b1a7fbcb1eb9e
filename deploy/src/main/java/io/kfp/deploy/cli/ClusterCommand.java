package io.kfp.deploy.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@TalksToCluster
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description =
                "JobManager + TaskManagers (KFP_TASKMANAGERS, 3 by default); REST API on 127.0.0.1 (KFP_REST_PORT, 8081), mutual TLS.")
final class ClusterCommand extends KfpCommand {
    @Command(
            name = "start",
            description =
                    "Start the JobManager and the TaskManagers; wait until all are registered.")
    void start(
            @Option(
                            names = "--tls",
                            description = {
                                "in a topology, the first time: TLS between Flink's processes and a REST API",
                                "that answers only clients with the cluster's certificate (kfp holds it). It stays so until KFP_RUN_DIR/flink-tls is removed.",
                                "One host always runs so: every local user reaches 127.0.0.1."
                            })
                    boolean tls) {
        ctx().cluster().start(tls);
    }

    @Command(name = "stop", description = "Stop every TaskManager, then the JobManager, by PID.")
    void stop() {
        ctx().cluster().stop();
    }

    @Command(name = "status", description = "Processes, and how many TaskManagers are registered.")
    void status() {
        ctx().cluster().status();
    }
}
