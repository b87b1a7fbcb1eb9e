package io.kfp.common.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A throw-away certificate authority and one certificate it signed, made with the JDK's {@code
 * keytool} wherever something must speak TLS (no certificate is ever committed): {@code
 * keystore.p12} (the key and its certificate, valid for localhost and the given addresses; the same
 * one is the server's and its peers' client certificate), {@code ca.crt} (the CA in PEM, for Kafka
 * clients: {@code ssl.truststore.type=PEM}) and {@code truststore.p12} (the CA again, as PKCS12),
 * both stores under one random password. The CA's key is deleted once it has signed, so the one
 * certificate is all it will ever vouch for: trusting the CA means trusting exactly that key. Used
 * by the embedded test broker, kfp's brokers and the lab's Flink (RPC, data, REST).
 */
public record TlsCertificates(Path keystore, Path caCertificate, Path truststore, String password) {

    /**
     * The subject of kfp's broker certificate: a controller listener with client authentication
     * sees {@code User:CN=kfp-broker}.
     */
    public static final String BROKER_SUBJECT = "CN=kfp-broker";

    /**
     * Creates them in {@code dir}: a certificate for {@code subject}, valid for {@code validDays}
     * days.
     */
    public static TlsCertificates create(
            Path dir, String subject, List<String> ipAddresses, int validDays) throws IOException {
        Files.createDirectories(dir);
        String password = UUID.randomUUID().toString();
        Path ca = dir.resolve("ca.p12");
        Path caCert = dir.resolve("ca.crt");
        Path broker = dir.resolve("keystore.p12");
        Path csr = dir.resolve("keystore.csr");
        Path brokerCert = dir.resolve("certificate.crt");
        Path truststore = dir.resolve("truststore.p12");
        String validity = String.valueOf(validDays);
        String san =
                "SAN=dns:localhost"
                        + ipAddresses.stream().map(ip -> ",ip:" + ip).collect(Collectors.joining());
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                validity,
                "-dname",
                "CN=kfp throw-away CA",
                "-ext",
                "bc:c",
                "-keystore",
                ca.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-storepass",
                password,
                "-file",
                caCert.toString());
        keytool(
                "-genkeypair",
                "-alias",
                "key",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                validity,
                "-dname",
                subject,
                "-keystore",
                broker.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password);
        keytool(
                "-certreq",
                "-alias",
                "key",
                "-keystore",
                broker.toString(),
                "-storepass",
                password,
                "-file",
                csr.toString());
        keytool(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-storepass",
                password,
                "-validity",
                validity,
                "-ext",
                san,
                "-infile",
                csr.toString(),
                "-outfile",
                brokerCert.toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                caCert.toString(),
                "-keystore",
                broker.toString(),
                "-storepass",
                password);
        keytool(
                "-importcert",
                "-alias",
                "key",
                "-file",
                brokerCert.toString(),
                "-keystore",
                broker.toString(),
                "-storepass",
                password);
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                caCert.toString(),
                "-keystore",
                truststore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password);
        // The CA's private key signs nothing more: without it no one can mint a certificate this
        // broker trusts.
        Files.delete(ca);
        Files.delete(csr);
        return new TlsCertificates(broker, caCert, truststore, password);
    }

    /**
     * Runs keytool; the store password it gets as an argument is random and made for this one run.
     */
    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output =
                    new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running keytool " + args[0], e);
        } finally {
            keytool.destroyForcibly();
        }
    }
}
