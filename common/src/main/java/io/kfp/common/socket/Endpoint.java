package io.kfp.common.socket;

import java.io.Serializable;

/** A {@code host:port} to read lines from. */
public record Endpoint(String host, int port) implements Serializable {

    /**
     * Parses {@code host:port} (IPv6 as {@code [::1]:9999}).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Endpoint parse(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("'" + t + "' is not host:port");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + t + "': the port is not a number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + t + "': the port must be between 1 and 65535");
        }
        return new Endpoint(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
