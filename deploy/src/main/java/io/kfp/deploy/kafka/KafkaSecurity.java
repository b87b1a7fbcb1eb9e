package io.kfp.deploy.kafka;

import io.kfp.common.kafka.TlsCertificates;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.Secrets;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.apache.kafka.common.security.scram.ScramLoginModule;

/**
 * The broker that authenticates and authorizes ({@code kfp kafka start --secure}): its clients
 * speak SASL_SSL with SCRAM-SHA-512, its controllers SSL with client certificates, the KRaft
 * StandardAuthorizer decides. Everything it needs is made once, when its storage is formatted, in
 * {@code RUN/kafka-security/} (readable by its owner only, never in git):
 *
 * <ul>
 *   <li>a throw-away CA ({@code ca.crt}, its key deleted) and the broker certificate it signed;
 *   <li>one SCRAM user per job (its kfp name: {@code relay}, ...) and {@code admin}, the super user
 *       kfp itself uses, each with a random password in {@code users/NAME.properties} ({@code
 *       sasl.jaas.config=...}), which clients read through Kafka's FileConfigProvider ({@code
 *       ${file:PATH:sasl.jaas.config}}): no password on a command line, in a job's YAML or in a
 *       log;
 *   <li>{@code admin.properties}: the admin's client settings, for kfp and for Kafka's own tools
 *       ({@code kafka-acls.sh --command-config}).
 * </ul>
 *
 * Its presence is what makes every later kfp command use SASL_SSL: the choice is the storage's.
 */
public final class KafkaSecurity {

    static final String MECHANISM = "SCRAM-SHA-512";
    static final String ADMIN = "admin";

    /** SCRAM iterations of a user made on a running broker: StorageTool's default at format. */
    private static final int ITERATIONS = 4096;

    /**
     * The super users: kfp's admin, and the brokers themselves towards the controllers (their
     * certificate).
     */
    static final String SUPER_USERS = "User:" + ADMIN + ";User:" + TlsCertificates.BROKER_SUBJECT;

    private final Path dir;

    public KafkaSecurity(Path run) {
        this.dir = run.resolve("kafka-security");
    }

    Path dir() {
        return dir;
    }

    /** Whether the broker's storage was formatted with users ({@code --secure}). */
    public boolean enabled() {
        return Files.isRegularFile(adminProperties());
    }

    public Path adminProperties() {
        return dir.resolve("admin.properties");
    }

    Path userFile(String user) {
        return dir.resolve("users").resolve(user + ".properties");
    }

    Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    Path keystoreSecret() {
        return dir.resolve("broker.secret");
    }

    /**
     * kfp's admin user and a user per job of {@code jobs}: the SCRAM users made at format time. A
     * job added later gets its user when first submitted ({@link #ensureUser}).
     */
    public static List<String> users(List<String> jobs) {
        List<String> users = new ArrayList<>(List.of(ADMIN));
        users.addAll(jobs);
        return users;
    }

    /**
     * Makes {@code user} on the running broker if it has no password file yet - a job added after
     * the storage was formatted - through {@code admin}, kfp's super user.
     */
    public void ensureUser(String user, Supplier<Admin> admin) {
        if (Files.exists(userFile(user))) {
            return;
        }
        String password = randomPassword();
        try (Admin client = admin.get()) {
            client.alterUserScramCredentials(
                            List.of(
                                    new UserScramCredentialUpsertion(
                                            user,
                                            new ScramCredentialInfo(
                                                    ScramMechanism.fromMechanismName(MECHANISM),
                                                    ITERATIONS),
                                            password)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Secrets.write(
                    userFile(user),
                    SaslConfigs.SASL_JAAS_CONFIG + "=" + jaas(user, password) + "\n");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted while making the Kafka user " + user);
        } catch (ExecutionException | TimeoutException e) {
            throw new KfpException(
                    "cannot make the Kafka user "
                            + user
                            + " on the secure broker: "
                            + e.getMessage()
                            + " (is the broker up? kfp kafka status)",
                    KfpException.FAILED,
                    e);
        }
    }

    /**
     * Makes the certificates (valid for {@code addresses}, one year) and a random password per
     * user. Only into an empty place: the users must match the storage they are formatted into.
     */
    void create(List<String> addresses, List<String> users) {
        try {
            if (Files.exists(dir)) {
                throw new KfpException(
                        dir
                                + " exists from an earlier secure broker but without "
                                + adminProperties().getFileName()
                                + ": remove it (and the broker's data) to start over.");
            }
            Secrets.directory(dir);
            Files.createDirectories(dir.resolve("users"));
            TlsCertificates certificates =
                    TlsCertificates.create(dir, TlsCertificates.BROKER_SUBJECT, addresses, 365);
            Secrets.write(keystoreSecret(), "password=" + certificates.password() + "\n");
            for (String user : users) {
                Secrets.write(
                        userFile(user),
                        SaslConfigs.SASL_JAAS_CONFIG + "=" + jaas(user, randomPassword()) + "\n");
            }
            Properties admin = clientSettings(ADMIN);
            StringBuilder text =
                    new StringBuilder(
                            "# kfp's admin client on the secure broker (also: kafka-acls.sh --command-config THIS)\n");
            admin.stringPropertyNames().stream()
                    .sorted()
                    .forEach(
                            key ->
                                    text.append(key)
                                            .append('=')
                                            .append(admin.getProperty(key))
                                            .append('\n'));
            Secrets.write(adminProperties(), text.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The client settings of {@code user}: SASL_SSL, SCRAM, the CA trusted, the password read from
     * the user's file when the client starts. What kfp submit gives each job as kafka.properties.*.
     */
    public Properties clientSettings(String user) {
        Properties props = new Properties();
        props.setProperty(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        props.setProperty(SaslConfigs.SASL_MECHANISM, MECHANISM);
        props.setProperty(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        props.setProperty(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, caCertificate().toString());
        props.setProperty("config.providers", "file");
        props.setProperty("config.providers.file.class", FileConfigProvider.class.getName());
        props.setProperty(
                SaslConfigs.SASL_JAAS_CONFIG,
                "${file:" + userFile(user) + ":" + SaslConfigs.SASL_JAAS_CONFIG + "}");
        return props;
    }

    /** kfp's own client settings: the admin's, from admin.properties. */
    public Properties adminSettings() {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(adminProperties(), StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return props;
    }

    /**
     * The StorageTool arguments that create {@code users}, {@code --add-scram
     * MECHANISM=[name=U,password=P]} each.
     */
    List<String> scramArguments(List<String> users) {
        List<String> args = new ArrayList<>();
        for (String user : users) {
            args.add("--add-scram");
            args.add(MECHANISM + "=[name=" + user + ",password=" + password(user) + "]");
        }
        return args;
    }

    /** The password in a user's file; only for formatting the storage, never printed. */
    private String password(String user) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(userFile(user), StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String jaas = props.getProperty(SaslConfigs.SASL_JAAS_CONFIG, "");
        int start = jaas.indexOf("password=\"");
        int end = start < 0 ? -1 : jaas.indexOf('"', start + "password=\"".length());
        if (end < 0) {
            throw new KfpException(
                    userFile(user)
                            + " has no password=\"...\" in its "
                            + SaslConfigs.SASL_JAAS_CONFIG);
        }
        return jaas.substring(start + "password=\"".length(), end);
    }

    static String jaas(String user, String password) {
        return ScramLoginModule.class.getName()
                + " required username=\""
                + user
                + "\" password=\""
                + password
                + "\";";
    }

    /**
     * 24 random bytes, URL-safe base64: no character the jaas or StorageTool syntax treats
     * specially.
     */
    private static String randomPassword() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
