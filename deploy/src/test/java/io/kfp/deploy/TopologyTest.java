package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Topology files: what the shipped lab says, and each mistake named with its key and the fix. */
class TopologyTest {

    static final Path HOME = Path.of("").toAbsolutePath(); // deploy/

    @Test
    void theShippedLabHasEveryRoleOnHostsOfItsOwn() {
        Topology lab = Topology.load("lab", HOME, HOME);
        assertThat(lab.name()).isEqualTo("lab");
        assertThat(lab.launcher()).isEqualTo(Topology.Launcher.NETNS);
        assertThat(lab.with(Topology.Role.KAFKA))
                .extracting(Topology.Host::name)
                .containsExactly("kafka1", "kafka2", "kafka3");
        assertThat(lab.with(Topology.Role.JOBMANAGER)).hasSize(2);
        assertThat(lab.with(Topology.Role.TASKMANAGER)).hasSize(3);
        assertThat(lab.with(Topology.Role.ZOOKEEPER))
                .extracting(Topology.Host::name)
                .containsExactly("master1");
        assertThat(lab.with(Topology.Role.S3))
                .extracting(Topology.Host::name)
                .containsExactly("store");
        assertThat(lab.client().name()).isEqualTo("operator");
        assertThat(lab.bootstrap(9092))
                .isEqualTo("198.18.0.11:9092,198.18.0.12:9092,198.18.0.13:9092");
        assertThat(lab.namespace(lab.host("kafka2"))).isEqualTo("kfp-lab-kafka2");
        assertThat(lab.bridgeNamespace()).isEqualTo("kfp-lab-net");
        assertThat(lab.onHost(lab.host("worker1"), List.of("java", "-version")))
                .containsExactly("ip", "netns", "exec", "kfp-lab-worker1", "java", "-version");
        assertThatThrownBy(() -> lab.host("worker9"))
                .hasMessageContaining("no host worker9 in topology lab");
    }

    @Test
    void theTestLabIsAnotherNameAndSubnet() {
        Topology test = Topology.load("src/test/resources/labt.yaml", HOME, HOME);
        Topology lab = Topology.load("lab", HOME, HOME);
        assertThat(test.name()).isNotEqualTo(lab.name());
        assertThat(test.subnet()).isNotEqualTo(lab.subnet());
        assertThat(test.hosts())
                .extracting(Topology.Host::name)
                .containsExactlyElementsOf(lab.hosts().stream().map(Topology.Host::name).toList());
    }

    @Test
    void mistakesAreNamedWithTheKeyAndWhatIsExpected() {
        assertThat(problem(lab(h -> h.put("kafka1", host("198.18.5.11", "kafka")))))
                .contains(
                        "hosts.kafka1.address = '198.18.5.11': expected an address in 198.18.0.0/24");
        assertThat(problem(lab(h -> h.put("kafka2", host("198.18.0.11", "kafka")))))
                .contains("an address of its own (kafka1 has it)");
        assertThat(problem(lab(h -> h.put("kafka1", host("198.18.0.11", "kafak")))))
                .contains(
                        "hosts.kafka1.roles = 'kafak': expected one of kafka, zookeeper, s3, jobmanager, taskmanager, client");
        assertThat(problem(lab(h -> h.remove("kafka3"))))
                .contains("2 kafka hosts; a KRaft quorum needs 1, 3 or 5.");
        assertThat(problem(lab(h -> h.put("master1", host("198.18.0.21", "jobmanager")))))
                .contains("2 jobmanagers need one zookeeper host");
        assertThat(problem(lab(h -> h.remove("operator"))))
                .contains("the lab needs one client host");
        Map<String, Object> yaml = lab(h -> {});
        yaml.put("launcher", "docker");
        assertThat(problem(yaml))
                .contains("launcher = 'docker': expected netns (the lab on this machine) or ssh");
        assertThatThrownBy(() -> Topology.load("nosuchlab", HOME, HOME))
                .hasMessageContaining("KFP_TOPOLOGY=nosuchlab: ")
                .hasMessageContaining("unset KFP_TOPOLOGY for the one-host setup");
    }

    private static String problem(Map<String, Object> yaml) {
        try {
            Topology.parse(yaml, "t.yaml");
        } catch (KfpException e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted: " + yaml);
    }

    private static Map<String, Object> host(String address, String... roles) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("address", address);
        h.put("roles", List.of(roles));
        return h;
    }

    private static Map<String, Object> lab(Consumer<Map<String, Object>> change) {
        Map<String, Object> hosts = new LinkedHashMap<>();
        hosts.put("kafka1", host("198.18.0.11", "kafka"));
        hosts.put("kafka2", host("198.18.0.12", "kafka"));
        hosts.put("kafka3", host("198.18.0.13", "kafka"));
        hosts.put("master1", host("198.18.0.21", "zookeeper", "jobmanager"));
        hosts.put("master2", host("198.18.0.22", "jobmanager"));
        hosts.put("worker1", host("198.18.0.41", "taskmanager"));
        hosts.put("operator", host("198.18.0.100", "client"));
        change.accept(hosts);
        Map<String, Object> yaml = new LinkedHashMap<>();
        yaml.put("name", "lab");
        yaml.put("launcher", "netns");
        yaml.put("subnet", "198.18.0.0/24");
        yaml.put("hosts", hosts);
        return yaml;
    }

    /** ssh hands the remote shell one line: every argument arrives as itself, never as syntax. */
    @Test
    void argumentsForSshAreQuotedForTheRemoteShell() throws Exception {
        assertThat(Topology.shellQuoted("/opt/kfp/bin/java")).isEqualTo("/opt/kfp/bin/java");
        assertThat(Topology.shellQuoted("--sink.topic")).isEqualTo("--sink.topic");
        List<String> hostile = List.of("a b", "it's", "x; rm -rf ~", "$(id)", "");
        String line = String.join(" ", hostile.stream().map(Topology::shellQuoted).toList());
        // What a POSIX shell makes of the line: the same arguments.
        Process sh =
                new ProcessBuilder("sh", "-c", "printf '%s\\n' " + line)
                        .redirectErrorStream(true)
                        .start();
        String printed = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(sh.waitFor()).isZero();
        assertThat(printed.split("\n", -1))
                .containsExactly("a b", "it's", "x; rm -rf ~", "$(id)", "", "");
    }
}
