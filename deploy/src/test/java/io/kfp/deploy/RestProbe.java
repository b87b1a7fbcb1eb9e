package io.kfp.deploy;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A client of a cluster's REST API as anyone could write it; from a host of the lab: {@code kfp lab
 * exec operator java -cp ... RestProbe URL [KEYSTORE PASSWORD_FILE]}: one GET, redirects followed
 * (http:// to https://), any server certificate accepted, a client certificate only when a keystore
 * is given. Prints the status and body, or the exception; exits 0 on a 2xx answer, 1 otherwise. JDK
 * classes only, so it runs with nothing but this class on its class path.
 */
public final class RestProbe {

    public static void main(String[] args) throws Exception {
        HttpClient http =
                client(
                        args.length == 3 ? Path.of(args[1]) : null,
                        args.length == 3 ? Path.of(args[2]) : null);
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(URI.create(args[0]))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            System.out.println(
                    response.statusCode() + " " + response.uri() + "\n" + response.body());
            System.exit(response.statusCode() / 100 == 2 ? 0 : 1);
        } catch (Exception e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                System.out.println(t);
            }
            System.exit(1);
        }
    }

    /**
     * An HTTP client that follows redirects and trusts any server, and presents the key in {@code
     * keystore} (PKCS12, its password in {@code passwordFile}) when one is given.
     */
    static HttpClient client(Path keystore, Path passwordFile) throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        KeyManagerFactory keys = null;
        if (keystore != null) {
            char[] password =
                    Files.readString(passwordFile, StandardCharsets.UTF_8).trim().toCharArray();
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keystore)) {
                store.load(in, password);
            }
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
        }
        tls.init(
                keys == null ? null : keys.getKeyManagers(),
                new TrustManager[] {new AnyServer()},
                null);
        return HttpClient.newBuilder()
                .sslContext(tls)
                .followRedirects(HttpClient.Redirect.ALWAYS)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** Trusts any server: what is probed is whether the server lets this client in. */
    private static final class AnyServer implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
