package io.kfp.deploy.lab;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.Topology;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Several hosts on this one machine: one Linux network namespace per host of a {@code netns}
 * topology, each with one interface ({@code eth0}, its address from the topology's subnet) whose
 * other end is plugged into a bridge living in a namespace of its own. Everything is created inside
 * those namespaces ({@code ip -n NS link add ... peer ... netns NS2}), so the machine's own
 * interfaces, routes and firewall are never touched; the namespaces have no route beyond the
 * subnet, so nothing in them can reach an address outside the lab.
 *
 * <p>A partition takes a host's link down at the bridge: its packets are dropped silently, as on a
 * real network that splits (tc netem is not available here). Root is required.
 */
public final class Lab {

    static final String BRIDGE = "br0";

    private final Topology topology;
    private final PrintStream out;

    public Lab(Topology topology, PrintStream out) {
        if (topology.launcher() != Topology.Launcher.NETNS) {
            throw new KfpException(
                    "topology "
                            + topology.name()
                            + " runs on real hosts (launcher: "
                            + topology.launcher().name().toLowerCase()
                            + "): the lab commands are for launcher: netns.");
        }
        this.topology = topology;
        this.out = out;
    }

    public void up() {
        requireRoot();
        List<String> existing = ours();
        List<String> wanted = namespaces();
        if (existing.containsAll(wanted)) {
            out.println(
                    "the lab "
                            + topology.name()
                            + " is already up: "
                            + wanted.size()
                            + " namespaces");
            return;
        }
        if (!existing.isEmpty()) {
            throw new KfpException(
                    "the lab "
                            + topology.name()
                            + " is half up (namespaces "
                            + existing
                            + "); run 'kfp lab down', then 'kfp lab up'.");
        }
        String net = topology.bridgeNamespace();
        try {
            ip("netns", "add", net);
            ip("-n", net, "link", "add", BRIDGE, "type", "bridge");
            ip("-n", net, "link", "set", BRIDGE, "up");
            int prefixLength =
                    Integer.parseInt(
                            topology.subnet().substring(topology.subnet().indexOf('/') + 1));
            for (Topology.Host host : topology.hosts()) {
                String ns = topology.namespace(host);
                ip("netns", "add", ns);
                ip("-n", ns, "link", "set", "lo", "up");
                // Both ends are made inside the lab: the machine's own namespace never sees them.
                ip(
                        "-n",
                        net,
                        "link",
                        "add",
                        bridgePort(host),
                        "type",
                        "veth",
                        "peer",
                        "name",
                        "eth0",
                        "netns",
                        ns);
                ip("-n", net, "link", "set", bridgePort(host), "master", BRIDGE, "up");
                ip("-n", ns, "addr", "add", host.address() + "/" + prefixLength, "dev", "eth0");
                ip("-n", ns, "link", "set", "eth0", "up");
            }
        } catch (KfpException e) {
            down();
            throw e;
        }
        out.println(
                "the lab "
                        + topology.name()
                        + " is up: "
                        + topology.hosts().size()
                        + " hosts on "
                        + topology.subnet()
                        + " ("
                        + String.join(
                                ", ",
                                topology.hosts().stream()
                                        .map(h -> h.name() + " " + h.address())
                                        .toList())
                        + ")");
    }

    /**
     * Removes every namespace of this lab; their interfaces go with them. Processes must be stopped
     * first.
     */
    public void down() {
        requireRoot();
        List<String> existing = ours();
        for (String ns : existing) {
            ip("netns", "del", ns);
        }
        out.println(
                existing.isEmpty()
                        ? "the lab " + topology.name() + " is down (nothing to remove)"
                        : "the lab "
                                + topology.name()
                                + " is down: removed "
                                + existing.size()
                                + " namespaces");
    }

    boolean isUp() {
        return ours().containsAll(namespaces());
    }

    /** Cuts {@code host} off the network: its link at the bridge goes down. */
    public void partition(Topology.Host host) {
        requireUp();
        ip("-n", topology.bridgeNamespace(), "link", "set", bridgePort(host), "down");
        out.println("partitioned " + host.name() + " (" + host.address() + "): its link is down");
    }

    public void heal(Topology.Host host) {
        requireUp();
        boolean wasDown =
                !ip("-n", topology.bridgeNamespace(), "link", "show", bridgePort(host))
                        .contains(",UP");
        ip("-n", topology.bridgeNamespace(), "link", "set", bridgePort(host), "up");
        if (wasDown) {
            out.println("healed " + host.name() + " (" + host.address() + "): its link is up");
        }
    }

    public void requireUp() {
        requireRoot();
        if (!isUp()) {
            throw new KfpException(
                    "the lab " + topology.name() + " is not up: run 'kfp lab up' first.");
        }
    }

    private List<String> namespaces() {
        List<String> all = new ArrayList<>();
        all.add(topology.bridgeNamespace());
        topology.hosts().forEach(h -> all.add(topology.namespace(h)));
        return all;
    }

    /**
     * The namespaces named like this lab's, whoever made them: only ours carry the kfp-NAME-
     * prefix.
     */
    private List<String> ours() {
        String prefix = "kfp-" + topology.name() + "-";
        return ip("netns", "list")
                .lines()
                .map(l -> l.split("\\s+")[0])
                .filter(n -> n.startsWith(prefix))
                .sorted(
                        (a, b) ->
                                a.equals(topology.bridgeNamespace())
                                        ? 1
                                        : b.equals(topology.bridgeNamespace())
                                                ? -1
                                                : a.compareTo(b))
                .toList();
    }

    private static String bridgePort(Topology.Host host) {
        return "v-" + host.name(); // at most 12 characters: interface names have 15
    }

    private static String ip(String... args) {
        List<String> command = new ArrayList<>();
        command.add("ip");
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output =
                    new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new KfpException(
                        String.join(" ", command) + " failed: " + output.trim(),
                        KfpException.FAILED);
            }
            return output;
        } catch (IOException e) {
            throw new KfpException(
                    "cannot run 'ip' (Debian: apt-get install iproute2): " + e.getMessage(),
                    KfpException.FAILED,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted", KfpException.FAILED, e);
        }
    }

    public static void requireRoot() {
        if (!isRoot()) {
            throw new KfpException(
                    "the lab needs root (it creates network namespaces with 'ip netns'); run kfp as root,"
                            + " e.g. sudo -E deploy/bin/kfp lab up.");
        }
    }

    /** Whether this process runs as root (uid 0, from /proc: the lab is Linux-only anyway). */
    static boolean isRoot() {
        try {
            return Files.readString(Path.of("/proc/self/status"))
                    .lines()
                    .filter(l -> l.startsWith("Uid:"))
                    .anyMatch(l -> l.split("\\s+")[1].equals("0"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Whether this process runs in one of the lab's namespaces ({@code kfp-*}, made by {@code ip
     * netns add}): its network namespace is the same inode as one of theirs.
     */
    public static boolean inside() {
        try {
            Object self = Files.getAttribute(Path.of("/proc/self/ns/net"), "unix:ino");
            Path netns = Path.of("/run/netns");
            if (!Files.isDirectory(netns)) {
                return false;
            }
            try (var names = Files.list(netns)) {
                for (Path ns :
                        names.filter(p -> p.getFileName().toString().startsWith("kfp-")).toList()) {
                    if (self.equals(Files.getAttribute(ns, "unix:ino"))) {
                        return true;
                    }
                }
            }
            return false;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Refuses to send to a lab address from the machine's own namespace: there it does not exist,
     * and a packet to it would leave the machine.
     */
    public static void requireInside(String address) {
        if (!inside()) {
            throw new IllegalStateException(
                    "refusing to connect to "
                            + address
                            + " from the machine's own network"
                            + " namespace: lab addresses exist only inside the lab (run this through deploy/bin/kfp).");
        }
    }
}
