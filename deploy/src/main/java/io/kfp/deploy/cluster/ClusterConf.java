package io.kfp.deploy.cluster;

import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Secrets;
import io.kfp.deploy.Topology;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * The Flink conf directories of the cluster: the client's and, in a topology, one per host, filled
 * from the templates in {@code conf/flink/} ({@code config.yaml}, plus {@code s3.yaml} and {@code
 * ha.yaml} where the topology has them, and {@code tls.yaml} once {@link FlinkTls} made the key).
 */
final class ClusterConf {

    private final KfpSettings settings;
    private final PrintStream out;
    private final PrintStream err;

    ClusterConf(KfpSettings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    private Topology topology() {
        return settings.topology();
    }

    /** The ZooKeeper server of the topology, if it has one. */
    ZooKeeperServer zooKeeper() {
        if (topology() == null || topology().with(Topology.Role.ZOOKEEPER).isEmpty()) {
            return null;
        }
        return new ZooKeeperServer(
                settings, topology().with(Topology.Role.ZOOKEEPER).get(0), out, err);
    }

    /**
     * Writes the client's conf directory ({@code RUN/flink-conf}: what kfp and Flink's CLI use to
     * find the cluster) and returns the configuration in it.
     */
    Configuration writeClient() {
        return write(topology() == null ? null : topology().client(), settings.flinkConf());
    }

    /** Writes {@code host}'s conf directory {@code conf} and returns the configuration in it. */
    Configuration write(Topology.Host host, Path conf) {
        Path templates = settings.home().resolve("conf").resolve("flink");
        try {
            for (String dir : List.of("log", "tmp")) {
                Files.createDirectories(settings.hostRun(host).resolve(dir));
            }
            Files.createDirectories(settings.run().resolve("savepoints"));
            Files.createDirectories(conf);
            String config = settings.fill(Files.readString(templates.resolve("config.yaml")), host);
            if (s3() != null) {
                config += s3().fill(Files.readString(templates.resolve("s3.yaml")));
            }
            if (topology() != null) {
                config +=
                        settings.fill(Files.readString(templates.resolve("ha.yaml")), host)
                                .replace(
                                        "@KFP_ZOOKEEPER@",
                                        zooKeeper() == null ? "" : zooKeeper().connectString())
                                .replace("@KFP_TOPOLOGY@", topology().name());
                if (zooKeeper() == null) {
                    config =
                            config.replace(
                                    "high-availability.type: zookeeper",
                                    "high-availability.type: none");
                }
            }
            FlinkTls tls = new FlinkTls(settings.run());
            if (tls.enabled()) {
                config += tls.settings(Files.readString(templates.resolve("tls.yaml")));
            }
            // It may hold the S3 secret.
            Secrets.write(
                    conf.resolve("config.yaml"),
                    config.replace("@KFP_SHARED_STORAGE@", sharedStorage()));
            for (String file : List.of("log4j.properties", "log4j-cli.properties")) {
                Files.copy(
                        templates.resolve(file),
                        conf.resolve(file),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return GlobalConfiguration.loadConfiguration(conf.toString());
    }

    /**
     * Storage every JobManager and TaskManager reaches: checkpoints, savepoints and the HA
     * directory. The topology's S3 store if it has one; else the run directory (on the lab's hosts
     * one file system, since they share this machine's disk).
     */
    String sharedStorage() {
        return s3() != null ? s3().uri() : "file://" + settings.run();
    }

    S3Store s3() {
        return S3Store.of(settings, out, err);
    }

    /** The conf directory of {@code host}'s processes; the client's on one host. */
    Path dir(Topology.Host host) {
        return host == null ? settings.flinkConf() : settings.hostRun(host).resolve("flink-conf");
    }
}
