package io.kfp.deploy.monitoring;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Processes;
import io.kfp.deploy.Topology;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Prometheus and Alertmanager ({@code kfp monitoring start}): Debian's {@code prometheus} and
 * {@code prometheus-alertmanager}, with kfp's {@link Exporter}, scraping every JobManager and
 * TaskManager reporter port ({@code KFP_PROM_PORTS}) and evaluating {@code
 * conf/prometheus/rules.yml}; Alertmanager sends to {@code KFP_ALERT_WEBHOOK} when set. On one host
 * they listen on 127.0.0.1; in a topology they run on its monitoring host, on its address. Their
 * own processes, started and stopped by PID like every other: a command of their own rather than
 * part of {@code cluster start}, because they outlive a cluster restart (the alert that a cluster
 * went away must survive it) and are optional.
 */
public final class Monitoring {

    public static final String PROMETHEUS = "prometheus";
    public static final String ALERTMANAGER = "alertmanager";
    public static final String EXPORTER = "exporter";

    private final KfpSettings settings;
    private final PrintStream out;
    private final PrintStream err;

    public Monitoring(KfpSettings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** Where they run: the topology's monitoring host; null on one host. */
    private Topology.Host host() {
        Topology topology = settings.topology();
        if (topology == null) {
            return null;
        }
        return topology.monitoring()
                .orElseThrow(
                        () ->
                                new KfpException(
                                        "the topology "
                                                + topology.name()
                                                + " has no monitoring host: add one with roles:"
                                                + " [monitoring], as deploy/conf/topology/lab.yaml"
                                                + " does."));
    }

    /** The address Prometheus, Alertmanager and the exporter listen on. */
    public String address() {
        return KfpSettings.address(host());
    }

    private Path dir() {
        return settings.hostRun(host()).resolve("monitoring");
    }

    private Processes processes() {
        return settings.processes(host(), out, err);
    }

    public String prometheusUrl() {
        return "http://" + address() + ":" + settings.prometheusPort();
    }

    /** The pipeline's page (conf/prometheus/consoles/kfp.html). */
    public String consoleUrl() {
        return prometheusUrl() + "/consoles/kfp.html";
    }

    public String alertmanagerUrl() {
        return "http://" + address() + ":" + settings.alertmanagerPort();
    }

    public String exporterUrl() {
        return "http://" + address() + ":" + settings.exporterPort() + "/metrics";
    }

    /** Whether Alertmanager runs (so alerts can be asked of it). */
    public boolean running() {
        return (settings.topology() == null || settings.topology().monitoring().isPresent())
                && processes().running(ALERTMANAGER).isPresent();
    }

    public void start() {
        String address = address();
        String prometheus = binary("prometheus");
        String alertmanager = binary("prometheus-alertmanager");
        Path dir = dir();
        Path log = settings.hostRun(host()).resolve("log");
        Path templates = settings.home().resolve("conf").resolve("prometheus");
        try {
            Files.createDirectories(dir.resolve("prometheus-data"));
            Files.createDirectories(dir.resolve("alertmanager-data"));
            Files.createDirectories(log);
            Files.copy(
                    templates.resolve("rules.yml"),
                    dir.resolve("rules.yml"),
                    StandardCopyOption.REPLACE_EXISTING);
            Files.createDirectories(dir.resolve("consoles"));
            Files.copy(
                    templates.resolve("consoles").resolve("kfp.html"),
                    dir.resolve("consoles").resolve("kfp.html"),
                    StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(
                    dir.resolve("prometheus.yml"),
                    Files.readString(templates.resolve("prometheus.yml"))
                            .replace("@KFP_RULES@", dir.resolve("rules.yml").toString())
                            .replace(
                                    "@KFP_ALERTMANAGER@",
                                    address + ":" + settings.alertmanagerPort())
                            .replace("@KFP_FLINK_TARGETS@", flinkTargets())
                            .replace("@KFP_EXPORTER@", address + ":" + settings.exporterPort()));
            Files.writeString(
                    dir.resolve("alertmanager.yml"),
                    Files.readString(templates.resolve("alertmanager.yml"))
                            .replace("@KFP_WEBHOOK_CONFIGS@", webhookConfigs()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        start(
                ALERTMANAGER,
                "Alertmanager",
                settings.alertmanagerPort(),
                alertmanager,
                "--config.file=" + dir.resolve("alertmanager.yml"),
                "--storage.path=" + dir.resolve("alertmanager-data"),
                "--web.listen-address=" + address + ":" + settings.alertmanagerPort(),
                // No gossip: it would listen on every interface.
                "--cluster.listen-address=");
        start(
                EXPORTER,
                "the exporter",
                settings.exporterPort(),
                settings.home().resolve("bin").resolve("kfp").toString(),
                "monitoring",
                "exporter",
                "--address",
                address,
                "--status-file",
                dir.resolve("exporter.status").toString());
        start(
                PROMETHEUS,
                "Prometheus",
                settings.prometheusPort(),
                prometheus,
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("prometheus-data"),
                "--web.listen-address=" + address + ":" + settings.prometheusPort(),
                "--web.console.templates=" + dir.resolve("consoles"),
                "--web.console.libraries=" + dir.resolve("consoles"));
        out.println(
                "Prometheus "
                        + prometheusUrl()
                        + " (the pipeline: "
                        + consoleUrl()
                        + ", alerts: "
                        + prometheusUrl()
                        + "/alerts), Alertmanager "
                        + alertmanagerUrl()
                        + (settings.alertWebhook() == null
                                ? "; no KFP_ALERT_WEBHOOK: alerts are shown there only"
                                : "; alerts go to " + settings.alertWebhook()));
    }

    /**
     * Starts {@code name} (its output in the host's log/NAME.out) and waits for it on {@code port}.
     */
    private void start(String name, String what, int port, String... command) {
        processes()
                .startAndAwait(
                        name,
                        what,
                        settings.hostRun(host()).resolve("log").resolve(name + ".out"),
                        List.of(command),
                        dir(),
                        address(),
                        port);
    }

    public void stop() {
        processes().stop(PROMETHEUS);
        processes().stop(ALERTMANAGER);
        processes().stop(EXPORTER);
    }

    public void status() {
        out.println(processes().describe(PROMETHEUS, "prometheus", prometheusUrl()));
        out.println(processes().describe(ALERTMANAGER, "alertmanager", alertmanagerUrl()));
        out.println(processes().describe(EXPORTER, "exporter", exporterUrl()));
    }

    /** kfp status's line: where the pipeline's page is, when Prometheus runs. */
    public void link() {
        if (running() && processes().running(PROMETHEUS).isPresent()) {
            out.println(
                    "monitoring: " + consoleUrl() + " (alerts: " + prometheusUrl() + "/alerts)");
        }
    }

    /**
     * Every port of KFP_PROM_PORTS on 127.0.0.1, or on every JobManager and TaskManager host of the
     * topology, as a YAML flow list's items.
     */
    String flinkTargets() {
        List<String> addresses =
                settings.topology() == null
                        ? List.of("127.0.0.1")
                        : settings.topology().hosts().stream()
                                .filter(
                                        h ->
                                                h.roles().contains(Topology.Role.JOBMANAGER)
                                                        || h.roles()
                                                                .contains(
                                                                        Topology.Role.TASKMANAGER))
                                .map(Topology.Host::address)
                                .toList();
        String[] range = settings.promPorts().split("-");
        int first = Integer.parseInt(range[0]);
        int last = range.length == 1 ? first : Integer.parseInt(range[1]);
        List<String> targets = new ArrayList<>();
        for (String address : addresses) {
            for (int port = first; port <= last; port++) {
                targets.add("'" + address + ":" + port + "'");
            }
        }
        return String.join(", ", targets);
    }

    String webhookConfigs() {
        return settings.alertWebhook() == null
                ? ""
                : "    webhook_configs:\n      - url: '"
                        + settings.alertWebhook()
                        + "'\n        send_resolved: true\n";
    }

    private static String binary(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name).toString();
            }
        }
        throw new KfpException(
                name
                        + " is not installed: on Debian, apt-get install prometheus"
                        + " prometheus-alertmanager.");
    }
}
