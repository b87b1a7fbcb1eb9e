package io.kfp.deploy.cli;

import io.kfp.deploy.monitoring.Exporter;
import io.kfp.deploy.monitoring.Monitoring;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "monitoring",
        mixinStandardHelpOptions = true,
        description =
                "Prometheus (KFP_PROMETHEUS_PORT, 9090) and Alertmanager (KFP_ALERTMANAGER_PORT, 9095) on 127.0.0.1"
                        + " (in a topology: its monitoring host), with the alert rules of conf/prometheus/rules.yml;"
                        + " alerts to KFP_ALERT_WEBHOOK if set.")
@TalksToCluster
final class MonitoringCommand extends KfpCommand {

    private Monitoring monitoring() {
        return new Monitoring(ctx().settings(), ctx().out(), ctx().err());
    }

    @Command(
            name = "start",
            description = "Start Alertmanager and Prometheus; wait until both answer.")
    void start() {
        monitoring().start();
    }

    @Command(name = "stop", description = "Stop Prometheus and Alertmanager by PID.")
    void stop() {
        monitoring().stop();
    }

    @Command(
            name = "exporter",
            description =
                    "Run the exporter in the foreground (monitoring start runs it): true lag, open transactions"
                            + " and last stable offsets on ADDRESS:KFP_EXPORTER_PORT (9096)/metrics.")
    void exporter(
            @Option(
                            names = "--address",
                            defaultValue = "127.0.0.1",
                            description = "the address it listens on (default: ${DEFAULT-VALUE})")
                    String address,
            @Option(
                            names = "--status-file",
                            required = true,
                            description = "where it writes the outcome of its last round")
                    Path statusFile)
            throws Exception {
        try (Exporter exporter =
                new Exporter(ctx(), address, ctx().settings().exporterPort(), statusFile)) {
            exporter.run();
        }
    }

    @Command(name = "status", description = "Whether they run, and where.")
    void status() {
        monitoring().status();
    }
}
