package io.kfp.deploy.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kfp.deploy.KfpSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.SecurityOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kfp cluster start --tls}'s key and settings, without a cluster: what Flink and kfp's own
 * HTTP client make of them.
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

    @Test
    void oneHostHasNoTls() {
        KfpSettings settings =
                KfpSettings.from(Map.of("KFP_RUN_DIR", "/tmp/kfp-no-such-run"), HOME, HOME);
        assertThatThrownBy(() -> new FlinkCluster(settings, System.out, System.err).start(true))
                .hasMessageContaining("--tls is for a topology");
    }
}
