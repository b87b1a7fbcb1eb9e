package io.kfp.deploy.cluster;

import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Secrets;
import io.kfp.deploy.Topology;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;

/**
 * The topology's S3 store: S3Proxy ({@code org.gaul:s3proxy}, its filesystem backend) on the s3
 * host, configured by {@code conf/s3proxy/s3proxy.properties}, holding the bucket {@value #BUCKET}
 * for checkpoints, savepoints and the JobManagers' HA directory. Its access key and secret are made
 * once per run directory and kept in {@code RUN/s3/credentials}, readable by its owner only.
 */
public final class S3Store {

    public static final String NAME = "s3proxy";
    static final int PORT = 8000;
    static final String BUCKET = "kfp";

    record Credentials(String identity, String credential) {}

    private final KfpSettings settings;
    private final Topology.Host host;
    private final PrintStream out;
    private final PrintStream err;

    S3Store(KfpSettings settings, Topology.Host host, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.host = host;
        this.out = out;
        this.err = err;
    }

    /** The topology's store, or null when it has no s3 host. */
    static S3Store of(KfpSettings settings, PrintStream out, PrintStream err) {
        if (settings.topology() == null || settings.topology().with(Topology.Role.S3).isEmpty()) {
            return null;
        }
        return new S3Store(settings, settings.topology().with(Topology.Role.S3).get(0), out, err);
    }

    String uri() {
        return "s3://" + BUCKET;
    }

    /** A template with the store's placeholders filled in. */
    String fill(String template) {
        Credentials c = credentials();
        return template.replace("@KFP_S3_ADDRESS@", host.address())
                .replace("@KFP_S3_PORT@", String.valueOf(PORT))
                .replace("@KFP_S3_IDENTITY@", c.identity())
                .replace("@KFP_S3_CREDENTIAL@", c.credential());
    }

    public void start() {
        Path dir = settings.hostRun(host).resolve("s3proxy");
        Path log = settings.hostRun(host).resolve("log");
        Path properties = dir.resolve("s3proxy.properties");
        try {
            Files.createDirectories(dir);
            Files.createDirectories(log);
            // The filesystem backend's buckets are the directories of its base directory.
            Files.createDirectories(settings.hostRun(host).resolve("s3-data").resolve(BUCKET));
            Secrets.write(
                    properties,
                    fill(
                            settings.fill(
                                    Files.readString(
                                            settings.home()
                                                    .resolve("conf/s3proxy/s3proxy.properties")),
                                    host)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command =
                settings.java(
                        List.of("-Xmx256m"),
                        "-jar",
                        settings.dist().resolve("s3proxy").resolve("s3proxy.jar").toString(),
                        "--properties",
                        properties.toString());
        settings.processes(host, out, err)
                .startAndAwait(
                        NAME,
                        "S3Proxy on " + host.name(),
                        log.resolve("s3proxy.out"),
                        command,
                        settings.hostRun(host),
                        host.address(),
                        PORT);
    }

    public void stop() {
        settings.processes(host, out, err).stop(NAME);
    }

    void status() {
        out.println(
                settings.processes(host, out, err)
                        .describe(
                                NAME,
                                "s3proxy on " + host.name(),
                                "http://" + host.address() + ":" + PORT + " bucket " + BUCKET));
    }

    /** Made once per run directory with a random secret; never printed. */
    Credentials credentials() {
        Path file = settings.run().resolve("s3").resolve("credentials");
        try {
            if (!Files.exists(file)) {
                byte[] secret = new byte[20];
                new SecureRandom().nextBytes(secret);
                Secrets.write(
                        file,
                        "identity=kfp-"
                                + settings.topology().name()
                                + "\ncredential="
                                + HexFormat.of().formatHex(secret)
                                + "\n");
            }
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(file)) {
                p.load(in);
            }
            return new Credentials(p.getProperty("identity"), p.getProperty("credential"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
