package io.kfp.embedded;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets this JVM listens on, read from Linux's {@code /proc} (what {@code ss -ltnp} shows
 * for this process): the open socket inodes under {@code /proc/self/fd}, matched with the LISTEN
 * entries of {@code /proc/net/tcp} and {@code tcp6}.
 */
public final class ListeningSockets {

    /** One listening socket: its address and port. */
    public record Listener(InetAddress address, int port) {
        public boolean loopbackOnly() {
            return address.isLoopbackAddress();
        }

        @Override
        public String toString() {
            return address.getHostAddress() + ":" + port;
        }
    }

    private static final String LISTEN = "0A";

    private ListeningSockets() {}

    public static List<Listener> ofThisProcess() throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // closed between listing and reading: not a listener any more
                }
            }
        }
        List<Listener> listeners = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.exists(path)) {
                continue;
            }
            List<String> lines = Files.readAllLines(path);
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals(LISTEN) && inodes.contains(f[9])) {
                    listeners.add(parse(f[1]));
                }
            }
        }
        return listeners;
    }

    /** {@code 0100007F:1F90} (little-endian words, hex) to 127.0.0.1:8080; IPv6 likewise. */
    static Listener parse(String local) throws UnknownHostException {
        String[] hostPort = local.split(":");
        String hex = hostPort[0];
        byte[] address = new byte[hex.length() / 2];
        for (int word = 0; word < address.length / 4; word++) {
            for (int b = 0; b < 4; b++) {
                int at = word * 8 + (3 - b) * 2;
                address[word * 4 + b] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return new Listener(InetAddress.getByAddress(address), Integer.parseInt(hostPort[1], 16));
    }
}
