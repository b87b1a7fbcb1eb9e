package io.kfp.deploy.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpSettings;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.SecurityOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's TLS key and settings ({@code kfp cluster start}, {@code --tls} in a topology),
 * without a cluster: what Flink and kfp's own HTTP client make of them.
 */
class FlinkTlsTest {

    static final Path HOME = Path.of("").toAbsolutePath(); // deploy/

    @Test
    void theClustersConfigurationTurnsTlsOnWithAKeyFlinkCanRead(@TempDir Path run)
            throws Exception {
        KfpSettings settings =
                KfpSettings.from(
                        Map.of(
                                "KFP_RUN_DIR",
                                run.toString(),
                                "KFP_TOPOLOGY",
                                HOME.resolve("src/test/resources/labt.yaml").toString()),
                        HOME,
                        HOME);
        FlinkCluster cluster = new FlinkCluster(settings, System.out, System.err);
        FlinkTls tls = new FlinkTls(run);
        Configuration plain = cluster.writeConf();
        assertThat(SecurityOptions.isRestSSLEnabled(plain)).as("without --tls").isFalse();
        assertThat(settings.restUrl()).startsWith("http://198.18.1.21:");

        tls.create(settings.topology());
        Configuration config = cluster.writeConf();
        assertThat(SecurityOptions.isInternalSSLEnabled(config)).isTrue();
        assertThat(SecurityOptions.isRestSSLEnabled(config)).isTrue();
        assertThat(SecurityOptions.isRestSSLAuthenticationEnabled(config)).isTrue();
        assertThat(config.get(SecurityOptions.SSL_REST_KEYSTORE))
                .isEqualTo(run.resolve("flink-tls/keystore.p12").toString());
        assertThat(settings.restUrl()).startsWith("https://198.18.1.21:");
        assertThat(
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(run.resolve("flink-tls"))))
                .isEqualTo("rwx------");
        assertThat(
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(
                                        run.resolve("flink-conf/config.yaml"))))
                .as("it holds the key's password")
                .isEqualTo("rw-------");
        // Flink's own SSL utilities open the key with the password written: what kfp's REST client
        // does.
        assertThat(FlinkTls.httpClient(config).sslContext().getProtocol()).isNotEmpty();

        Configuration wrong = new Configuration(config);
        wrong.set(SecurityOptions.SSL_REST_KEYSTORE_PASSWORD, "not-it");
        assertThatThrownBy(() -> FlinkTls.httpClient(wrong))
                .hasMessageContaining("cannot read the REST client certificate")
                .hasMessageContaining(run.resolve("flink-tls/keystore.p12").toString())
                .hasMessageNotContaining("not-it");
    }

    /**
     * One host talks TLS too (every local user reaches 127.0.0.1): the key is valid for 127.0.0.1
     * and made by the first start; a cluster still running from before it is not silently cut off
     * from kfp, but named with what to do.
     */
    @Test
    void oneHostTalksTlsFromItsFirstStart(@TempDir Path run) throws Exception {
        KfpSettings settings = KfpSettings.from(Map.of("KFP_RUN_DIR", run.toString()), HOME, HOME);
        FlinkCluster cluster = new FlinkCluster(settings, System.out, System.err);
        Files.createDirectories(run.resolve("pid"));
        Process before = new ProcessBuilder("sh", "-c", "sleep 60", run.toString()).start();
        try {
            Files.writeString(run.resolve("pid/jobmanager.pid"), String.valueOf(before.pid()));
            assertThatThrownBy(() -> cluster.start(false))
                    .hasMessageContaining("the cluster runs without TLS")
                    .hasMessageContaining("'kfp cluster stop'");
            assertThat(new FlinkTls(run).enabled())
                    .as("no key made under a running cluster")
                    .isFalse();
        } finally {
            before.destroy();
            before.waitFor();
        }

        new FlinkTls(run).create(null);
        Configuration config = cluster.writeConf();
        assertThat(SecurityOptions.isInternalSSLEnabled(config)).isTrue();
        assertThat(SecurityOptions.isRestSSLAuthenticationEnabled(config)).isTrue();
        assertThat(settings.restUrl()).isEqualTo("https://127.0.0.1:8081");
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(run.resolve("flink-tls/keystore.p12"))) {
            keys.load(in, Files.readString(run.resolve("flink-tls/password")).trim().toCharArray());
        }
        X509Certificate certificate =
                (X509Certificate) keys.getCertificate(keys.aliases().nextElement());
        assertThat(certificate.getSubjectAlternativeNames())
                .as("valid for the address the REST API listens on")
                .contains(List.of(7, "127.0.0.1"));
    }
}
