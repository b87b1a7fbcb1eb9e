package io.kfp.deploy.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secure broker's material, made without a broker: who can read it, and what reaches clients
 * and logs.
 */
class KafkaSecurityTest {

    @Test
    void secretsAreTheOwnersOnlyAndClientsGetReferencesNotPasswords(@TempDir Path run)
            throws Exception {
        KafkaSecurity security = new KafkaSecurity(run);
        assertThat(security.enabled()).isFalse();
        security.create(
                List.of("127.0.0.1"), KafkaSecurity.users(List.of("ingest", "relay", "sink")));
        assertThat(security.enabled()).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(security.dir())))
                .isEqualTo("rwx------");
        for (String user : List.of("admin", "ingest", "relay", "sink")) {
            assertThat(
                            PosixFilePermissions.toString(
                                    Files.getPosixFilePermissions(security.userFile(user))))
                    .isEqualTo("rw-------");
            assertThat(Files.readString(security.userFile(user)))
                    .matches(
                            "(?s)sasl\\.jaas\\.config=org\\.apache\\.kafka\\.common\\.security\\.scram\\.ScramLoginModule required"
                                    + " username=\""
                                    + user
                                    + "\" password=\"[A-Za-z0-9_-]{32}\";\\n");
        }
        assertThat(Files.exists(security.dir().resolve("ca.p12")))
                .as("the CA's private key is gone")
                .isFalse();
        assertThat(Files.readString(security.caCertificate()))
                .startsWith("-----BEGIN CERTIFICATE-----");

        Properties relay = security.clientSettings("relay");
        assertThat(relay.getProperty("sasl.jaas.config"))
                .isEqualTo("${file:" + security.userFile("relay") + ":sasl.jaas.config}");
        assertThat(relay.toString()).doesNotContain(password(security, "relay"));
        assertThat(security.adminSettings().toString())
                .doesNotContain(password(security, "admin"))
                .contains("security.protocol=SASL_SSL");

        assertThat(security.scramArguments(List.of("relay")))
                .containsExactly(
                        "--add-scram",
                        "SCRAM-SHA-512=[name=relay,password=" + password(security, "relay") + "]");
        assertThatThrownBy(
                        () -> new KafkaSecurity(run).create(List.of("127.0.0.1"), List.of("admin")))
                .as("made once: users must match the storage they were formatted into")
                .hasMessageContaining("remove it (and the broker's data) to start over");
    }

    @Test
    void storageToolsRecordsOfTheUsersKeepOnlyTheirNames() {
        String line =
                "Bootstrap metadata: BootstrapMetadata(records=[ApiMessageAndVersion(FeatureLevelRecord(name='x', featureLevel=2) at version 0),"
                        + " ApiMessageAndVersion(UserScramCredentialRecord(name='relay', mechanism=2, salt=[49, 107], storedKey=[-58, 47],"
                        + " serverKey=[-66, 125], iterations=4096) at version 0)])";
        assertThat(StorageFormat.WithoutScramKeys.filter(line))
                .contains(
                        "FeatureLevelRecord(name='x', featureLevel=2)",
                        "UserScramCredentialRecord(name='relay', keys not shown)")
                .doesNotContain("storedKey", "serverKey", "salt");
    }

    @Test
    void aPrintedKafkaAclsLineIsWhatAclCommandRuns() {
        assertThat(
                        AclGrant.arguments(
                                "kafka-acls.sh --bootstrap-server 127.0.0.1:9092 --add --allow-principal User:relay"
                                        + " --operation Write --operation Describe --transactional-id kfp.relay-job.default --resource-pattern-type prefixed",
                                "/a.properties"))
                .containsExactly(
                        "--bootstrap-server",
                        "127.0.0.1:9092",
                        "--add",
                        "--allow-principal",
                        "User:relay",
                        "--operation",
                        "Write",
                        "--operation",
                        "Describe",
                        "--transactional-id",
                        "kfp.relay-job.default",
                        "--resource-pattern-type",
                        "prefixed",
                        "--command-config",
                        "/a.properties");
        assertThatThrownBy(() -> AclGrant.arguments("# source.topic-pattern /x/", "/a.properties"))
                .hasMessageContaining("not a kafka-acls.sh line");
    }

    private static String password(KafkaSecurity security, String user) throws Exception {
        return Files.readString(security.userFile(user))
                .replaceFirst("(?s).*password=\"([^\"]+)\".*", "$1");
    }
}
