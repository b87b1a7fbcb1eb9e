package io.kfp.deploy;

import java.io.File;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.YamlParserUtils;

/**
 * Which hosts there are and which roles run on each, from a topology file such as {@code
 * deploy/conf/topology/lab.yaml} ({@code KFP_TOPOLOGY}). Without one, kfp runs today's one-host
 * setup: everything on 127.0.0.1.
 *
 * <p>A role is started on its host through the topology's launcher: {@code netns} runs it with
 * {@code ip netns exec kfp-NAME-HOST} (the lab); {@code ssh} would run it with {@code ssh HOST}, as
 * Flink's own start-cluster.sh does with its masters and workers files (documented, not tested
 * here).
 */
public record Topology(String name, Launcher launcher, String subnet, List<Host> hosts) {

    public enum Launcher {
        NETNS,
        SSH
    }

    public enum Role {
        KAFKA,
        ZOOKEEPER,
        S3,
        JOBMANAGER,
        TASKMANAGER,
        CLIENT,
        MONITORING
    }

    public record Host(String name, String address, Set<Role> roles) {
        boolean has(Role role) {
            return roles.contains(role);
        }
    }

    /** The file at {@code value}, or {@code deploy/conf/topology/VALUE.yaml} for a bare name. */
    static Topology load(String value, Path home, Path callerDir) {
        Path file =
                value.matches("[a-z0-9-]+")
                        ? home.resolve("conf").resolve("topology").resolve(value + ".yaml")
                        : callerDir.resolve(value);
        if (!Files.isRegularFile(file)) {
            throw new KfpException(
                    "KFP_TOPOLOGY="
                            + value
                            + ": "
                            + file
                            + " does not exist; give a topology file"
                            + " (e.g. deploy/conf/topology/lab.yaml) or unset KFP_TOPOLOGY for the one-host setup.");
        }
        Map<String, Object> yaml;
        try {
            yaml = YamlParserUtils.loadYamlFile(new File(file.toString()));
        } catch (Exception e) {
            throw new KfpException("topology " + file + " is not valid YAML: " + e.getMessage());
        }
        return parse(yaml, file.toString());
    }

    @SuppressWarnings("unchecked")
    static Topology parse(Map<String, Object> yaml, String origin) {
        String name = string(yaml, "name", origin);
        if (!name.matches("[a-z][a-z0-9]{0,7}")) {
            throw problem(
                    origin,
                    "name",
                    name,
                    "a lowercase letter then up to 7 letters or digits (it is part of every namespace name)");
        }
        String launcherText = string(yaml, "launcher", origin);
        Launcher launcher;
        try {
            launcher = Launcher.valueOf(launcherText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw problem(
                    origin, "launcher", launcherText, "netns (the lab on this machine) or ssh");
        }
        String subnet = string(yaml, "subnet", origin);
        if (!subnet.matches("\\d+\\.\\d+\\.\\d+\\.0/24")) {
            throw problem(origin, "subnet", subnet, "a /24 network such as 198.18.0.0/24");
        }
        String prefix = subnet.substring(0, subnet.lastIndexOf('.') + 1);
        Object hostsYaml = yaml.get("hosts");
        if (!(hostsYaml instanceof Map<?, ?> hostMap) || hostMap.isEmpty()) {
            throw problem(
                    origin,
                    "hosts",
                    String.valueOf(hostsYaml),
                    "a map of host name -> {address, roles}");
        }
        List<Host> hosts = new ArrayList<>();
        Map<String, String> addresses = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : hostMap.entrySet()) {
            String host = String.valueOf(entry.getKey());
            String where = "hosts." + host;
            if (!host.matches("[a-z][a-z0-9]{0,9}")) {
                throw problem(
                        origin,
                        where,
                        host,
                        "a host name of a lowercase letter then up to 9 letters or digits");
            }
            if (!(entry.getValue() instanceof Map<?, ?> h)) {
                throw problem(
                        origin,
                        where,
                        String.valueOf(entry.getValue()),
                        "{address: A.B.C.D, roles: [...]}");
            }
            String address = string((Map<String, Object>) h, "address", origin + " " + where);
            if (!address.startsWith(prefix)
                    || !isIpv4(address)
                    || address.endsWith(".0")
                    || address.endsWith(".255")) {
                throw problem(origin, where + ".address", address, "an address in " + subnet);
            }
            if (addresses.containsKey(address)) {
                throw problem(
                        origin,
                        where + ".address",
                        address,
                        "an address of its own (" + addresses.get(address) + " has it)");
            }
            addresses.put(address, host);
            Set<Role> roles = EnumSet.noneOf(Role.class);
            Object rolesYaml = h.get("roles");
            if (!(rolesYaml instanceof List<?> list) || list.isEmpty()) {
                throw problem(
                        origin,
                        where + ".roles",
                        String.valueOf(rolesYaml),
                        "a list of roles, e.g. [kafka]");
            }
            for (Object role : list) {
                try {
                    roles.add(Role.valueOf(String.valueOf(role).toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw problem(
                            origin,
                            where + ".roles",
                            String.valueOf(role),
                            "one of kafka, zookeeper, s3, jobmanager, taskmanager, client, monitoring");
                }
            }
            hosts.add(new Host(host, address, roles));
        }
        Topology topology = new Topology(name, launcher, subnet, List.copyOf(hosts));
        topology.check(origin);
        return topology;
    }

    private void check(String origin) {
        int kafka = with(Role.KAFKA).size();
        if (kafka != 1 && kafka != 3 && kafka != 5) {
            throw new KfpException(
                    "topology "
                            + origin
                            + ": "
                            + kafka
                            + " kafka hosts; a KRaft quorum needs 1, 3 or 5.");
        }
        if (with(Role.JOBMANAGER).isEmpty() || with(Role.TASKMANAGER).isEmpty()) {
            throw new KfpException(
                    "topology "
                            + origin
                            + ": it needs at least one jobmanager and one taskmanager host.");
        }
        if (with(Role.JOBMANAGER).size() > 1 && with(Role.ZOOKEEPER).size() != 1) {
            throw new KfpException(
                    "topology "
                            + origin
                            + ": "
                            + with(Role.JOBMANAGER).size()
                            + " jobmanagers need one zookeeper host for leader election (high availability).");
        }
        for (Role one : List.of(Role.ZOOKEEPER, Role.S3, Role.CLIENT, Role.MONITORING)) {
            if (with(one).size() > 1) {
                throw new KfpException(
                        "topology "
                                + origin
                                + ": more than one "
                                + one.name().toLowerCase(Locale.ROOT)
                                + " host.");
            }
        }
        if (launcher == Launcher.NETNS && with(Role.CLIENT).size() != 1) {
            throw new KfpException(
                    "topology "
                            + origin
                            + ": the lab needs one client host, where kfp and the tests' clients run.");
        }
    }

    public List<Host> with(Role role) {
        return hosts.stream().filter(h -> h.has(role)).toList();
    }

    public Host host(String name) {
        return hosts.stream()
                .filter(h -> h.name().equals(name))
                .findFirst()
                .orElseThrow(
                        () ->
                                new KfpException(
                                        "no host "
                                                + name
                                                + " in topology "
                                                + this.name
                                                + ": its hosts are "
                                                + hosts.stream().map(Host::name).toList()
                                                + "."));
    }

    public Host client() {
        return with(Role.CLIENT).get(0);
    }

    /** The host of Prometheus, Alertmanager and kfp's exporter, if the topology has one. */
    public Optional<Host> monitoring() {
        return with(Role.MONITORING).stream().findFirst();
    }

    /** The network namespace that is {@code host} in the lab. */
    public String namespace(Host host) {
        return "kfp-" + name + "-" + host.name();
    }

    /** The namespace that holds the bridge joining the hosts. */
    public String bridgeNamespace() {
        return "kfp-" + name + "-net";
    }

    /**
     * The command that runs {@code command} on {@code host}. ssh joins its arguments into one line
     * that the remote shell parses again, so each is quoted for it: an argument with a space, a
     * quote or a {@code ;} arrives as one argument, never as shell syntax.
     */
    public List<String> onHost(Host host, List<String> command) {
        List<String> full = new ArrayList<>();
        if (launcher == Launcher.NETNS) {
            full.addAll(List.of("ip", "netns", "exec", namespace(host)));
            full.addAll(command);
        } else {
            full.addAll(List.of("ssh", host.name(), "--"));
            full.add(String.join(" ", command.stream().map(Topology::shellQuoted).toList()));
        }
        return full;
    }

    /** {@code value} as one word of a POSIX shell command line. */
    static String shellQuoted(String value) {
        return value.matches("[A-Za-z0-9_./=:@%+,-]+")
                ? value
                : "'" + value.replace("'", "'\\''") + "'";
    }

    /** Kafka's bootstrap servers: every kafka host's broker listener. */
    String bootstrap(int port) {
        return String.join(
                ",", with(Role.KAFKA).stream().map(h -> h.address() + ":" + port).toList());
    }

    private static boolean isIpv4(String address) {
        try {
            return address.matches("\\d+\\.\\d+\\.\\d+\\.\\d+")
                    && InetAddress.getByName(address).getAddress().length == 4;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String string(Map<String, Object> yaml, String key, String origin) {
        Object value = yaml.get(key);
        if (value == null || String.valueOf(value).isBlank()) {
            throw new KfpException("topology " + origin + ": '" + key + "' is missing.");
        }
        return String.valueOf(value).trim();
    }

    private static KfpException problem(String origin, String key, String value, String expected) {
        return new KfpException(
                "topology "
                        + origin
                        + ": "
                        + key
                        + " = '"
                        + value
                        + "': expected "
                        + expected
                        + ".");
    }
}
