package io.kfp.deploy.cluster;

import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Topology;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The ZooKeeper server through which the JobManagers of a topology elect their leader (and
 * TaskManagers and clients find it): a standalone {@code org.apache.zookeeper} server from {@code
 * target/dist/zookeeper/lib}, configured by {@code conf/zookeeper/zoo.cfg}.
 */
public final class ZooKeeperServer {

    public static final String NAME = "zookeeper";
    static final int PORT = 2181;

    private final KfpSettings settings;
    private final Topology.Host host;
    private final PrintStream out;
    private final PrintStream err;

    ZooKeeperServer(KfpSettings settings, Topology.Host host, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.host = host;
        this.out = out;
        this.err = err;
    }

    String connectString() {
        return host.address() + ":" + PORT;
    }

    void start() {
        Path dir = settings.hostRun(host).resolve("zookeeper");
        Path log = settings.hostRun(host).resolve("log");
        try {
            Files.createDirectories(dir);
            Files.createDirectories(log);
            Files.createDirectories(settings.hostRun(host).resolve("zookeeper-data"));
            Files.writeString(
                    dir.resolve("zoo.cfg"),
                    settings.fill(
                            Files.readString(settings.home().resolve("conf/zookeeper/zoo.cfg")),
                            host));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command =
                settings.java(
                        List.of(
                                "-Xmx256m",
                                "-Dlog.file=" + log.resolve("zookeeper.log"),
                                "-Dlog4j.configurationFile="
                                        + settings.flinkConf().resolve("log4j.properties"),
                                "-Dzookeeper.jmx.log4j.disable=true"),
                        "-cp",
                        classpath(),
                        "org.apache.zookeeper.server.ZooKeeperServerMain",
                        dir.resolve("zoo.cfg").toString());
        settings.processes(host, out, err)
                .startAndAwait(
                        NAME,
                        "ZooKeeper on " + host.name(),
                        log.resolve("zookeeper.out"),
                        command,
                        settings.hostRun(host),
                        host.address(),
                        PORT);
    }

    void stop() {
        settings.processes(host, out, err).stop(NAME);
    }

    void status() {
        out.println(
                settings.processes(host, out, err)
                        .describe(NAME, "zookeeper on " + host.name(), connectString()));
    }

    /**
     * ZooKeeper's own jars, and the logging, commons-io and snappy jars it shares with Flink's
     * lib/.
     */
    private String classpath() {
        Path lib = settings.dist().resolve("flink").resolve("lib");
        List<String> entries = new ArrayList<>();
        entries.add(settings.dist().resolve("zookeeper").resolve("lib") + "/*");
        try (Stream<Path> jars = Files.list(lib)) {
            jars.map(p -> p.getFileName().toString())
                    .filter(
                            n ->
                                    n.matches(
                                            "(commons-io|log4j-api|log4j-core|log4j-slf4j2-impl|slf4j-api|snappy-java)-.*\\.jar"))
                    .sorted()
                    .forEach(n -> entries.add(lib.resolve(n).toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return String.join(":", entries);
    }
}
