package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretRedactionTest {

    @Test
    void hidesPasswordsJaasConfigsAndOtherSecrets() {
        Map<String, String> safe =
                SecretRedaction.redactAll(
                        Map.of(
                                "kafka.properties.sasl.jaas.config",
                                        "PlainLoginModule password=\"hunter2\";",
                                "kafka.properties.ssl.keystore.password", "changeit",
                                "kafka.properties.ssl.key.password", "k",
                                "kafka.properties.security.protocol", "SASL_SSL",
                                "sink.topic", "out"));
        assertThat(safe)
                .containsEntry("kafka.properties.sasl.jaas.config", SecretRedaction.REDACTED)
                .containsEntry("kafka.properties.ssl.keystore.password", SecretRedaction.REDACTED)
                .containsEntry("kafka.properties.ssl.key.password", SecretRedaction.REDACTED)
                .containsEntry("kafka.properties.security.protocol", "SASL_SSL")
                .containsEntry("sink.topic", "out");
        assertThat(safe.values()).noneMatch(v -> v.contains("hunter2") || v.contains("changeit"));
    }

    @Test
    void valuesThatCarrySecretsAreHiddenWhateverTheKey() {
        assertThat(
                        SecretRedaction.redact(
                                "kafka.properties.sasl.jass.config",
                                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";"))
                .isEqualTo(SecretRedaction.REDACTED);
        assertThat(SecretRedaction.redact("kafka.properties.whatever", "token=abc"))
                .isEqualTo(SecretRedaction.REDACTED);
        assertThat(SecretRedaction.redact("sink.topic", "passwords-audit"))
                .isEqualTo("passwords-audit");
    }

    @Test
    void keysFlinkHidesAndTheOnesItDoesNotAreBothHidden() {
        // Flink's own rule (GlobalConfiguration.isSensitive) ...
        assertThat(SecretRedaction.isSecret("s3.secret-key")).isTrue();
        assertThat(SecretRedaction.isSecret("kafka.properties.sasl.oauthbearer.token.endpoint.url"))
                .isTrue();
        // ... and what it lacks
        assertThat(SecretRedaction.isSecret("kafka.properties.db.passwd")).isTrue();
        assertThat(SecretRedaction.isSecret("kafka.properties.ssl.keystore.key"))
                .isTrue(); // a PEM private key
        assertThat(SecretRedaction.isSecret("kafka.properties.ssl.key.location")).isTrue();
        assertThat(SecretRedaction.isSecret("s3.credentials.provider")).isTrue();
        assertThat(SecretRedaction.isSecret("kafka.properties.private.key.file")).isTrue();
        assertThat(SecretRedaction.isSecret("sink.topic")).isFalse();
    }

    @Test
    void nullStaysNull() {
        assertThat(SecretRedaction.redact("x.password", null)).isNull();
    }
}
