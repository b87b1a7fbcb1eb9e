package io.kfp.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority and a broker certificate it signed, made with the JDK's
 * {@code keytool} when a test needs TLS (no certificate is committed): {@code broker.p12} (the
 * broker's key and certificate, valid for 127.0.0.1 and localhost) and {@code truststore.p12}
 * (the CA, for clients), both PKCS12 under one random password.
 */
public record TestCertificates(Path keystore, Path truststore, String password) {

    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        String password = UUID.randomUUID().toString();
        Path ca = dir.resolve("ca.p12");
        Path caCert = dir.resolve("ca.crt");
        Path broker = dir.resolve("broker.p12");
        Path csr = dir.resolve("broker.csr");
        Path brokerCert = dir.resolve("broker.crt");
        Path truststore = dir.resolve("truststore.p12");
        String store = password;
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=kfp test CA", "-ext", "bc:c", "-keystore", ca.toString(), "-storetype", "PKCS12",
                "-storepass", store);
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-storepass", store, "-file", caCert.toString());
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-keystore", broker.toString(), "-storetype", "PKCS12", "-storepass", store);
        keytool("-certreq", "-alias", "broker", "-keystore", broker.toString(), "-storepass", store, "-file", csr.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-storepass", store, "-validity", "2",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-infile", csr.toString(), "-outfile", brokerCert.toString());
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-keystore", broker.toString(),
                "-storepass", store);
        keytool("-importcert", "-alias", "broker", "-file", brokerCert.toString(), "-keystore", broker.toString(),
                "-storepass", store);
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-keystore", truststore.toString(),
                "-storetype", "PKCS12", "-storepass", store);
        return new TestCertificates(broker, truststore, password);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: " + output);
            }
        } finally {
            keytool.destroyForcibly();
        }
    }
}
