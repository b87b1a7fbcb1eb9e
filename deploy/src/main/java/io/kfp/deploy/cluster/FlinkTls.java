package io.kfp.deploy.cluster;

import io.kfp.common.kafka.TlsCertificates;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Secrets;
import io.kfp.deploy.Topology;
import io.kfp.deploy.kafka.KafkaSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.runtime.net.SSLUtils;

/**
 * TLS for Flink ({@code conf/flink/tls.yaml}): internal connections and the REST API with mutual
 * authentication, so that only a holder of the key - kfp, as the cluster's user - can submit, stop
 * or upload a job. Always on one host (every local user reaches 127.0.0.1, and Flink's {@code POST
 * /jobs} takes a job graph with its jars whatever {@code web.submit.enable} says); in a topology
 * from {@code kfp cluster start --tls} on. The key is made once per run directory ({@code
 * RUN/flink-tls/}), valid for the address of every host; its presence is what makes every later kfp
 * command use TLS, as {@link KafkaSecurity}'s does.
 */
public final class FlinkTls {

    private final Path dir;

    public FlinkTls(Path run) {
        this.dir = run.resolve("flink-tls");
    }

    /**
     * Whether this run directory's cluster talks TLS (a {@code kfp cluster start} made its key).
     */
    public boolean enabled() {
        return Files.isRegularFile(dir.resolve("password"));
    }

    /**
     * Makes the key, valid for the address of every host of {@code topology} (null: the one host,
     * 127.0.0.1).
     */
    void create(Topology topology) {
        try {
            Secrets.directory(dir);
            TlsCertificates certificates =
                    TlsCertificates.create(
                            dir,
                            "CN=kfp-flink",
                            topology == null
                                    ? List.of(KfpSettings.address(null))
                                    : topology.hosts().stream()
                                            .map(Topology.Host::address)
                                            .toList(),
                            365);
            Secrets.write(dir.resolve("password"), certificates.password());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code template} (tls.yaml) filled in with the key's place and password. */
    String settings(String template) {
        try {
            return template.replace("@KFP_TLS_DIR@", dir.toString())
                    .replace(
                            "@KFP_TLS_PASSWORD@",
                            Files.readString(dir.resolve("password"), StandardCharsets.UTF_8)
                                    .trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An HTTP client for the REST API of the cluster {@code config} describes: with its certificate
     * when the API wants one.
     */
    public static HttpClient httpClient(Configuration config) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (SecurityOptions.isRestSSLEnabled(config)) {
            try {
                builder.sslContext(SSLUtils.createRestSSLContext(config, true));
            } catch (Exception e) {
                throw new KfpException(
                        "cannot read the REST client certificate ("
                                + SecurityOptions.SSL_REST_KEYSTORE.key()
                                + " "
                                + config.get(SecurityOptions.SSL_REST_KEYSTORE)
                                + "): "
                                + e.getMessage(),
                        KfpException.FAILED,
                        e);
            }
        }
        return builder.build();
    }
}
