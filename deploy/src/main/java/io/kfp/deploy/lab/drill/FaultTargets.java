package io.kfp.deploy.lab.drill;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.Topology;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.cluster.FlinkTls;
import io.kfp.deploy.kafka.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;

/**
 * What the faults aim at, found as the lab is now: the broker leading most output partitions, the
 * coordinator of the relay's transactions, the leading JobManager, a TaskManager running the relay.
 * Each target found is said, so the output shows what was struck.
 */
final class FaultTargets {
    private final KfpContext kfp;
    private final Topology topology;
    private final DrillRun run;
    private final DrillRelay relay;
    private final DrillClock clock;

    FaultTargets(KfpContext kfp, DrillRun run, DrillRelay relay, DrillClock clock) {
        this.kfp = kfp;
        this.topology = kfp.settings().topology();
        this.run = run;
        this.relay = relay;
        this.clock = clock;
    }

    /** The node id of the broker leading most partitions of the output. */
    int leaderOfMostPartitions() throws Exception {
        try (Admin admin = Topics.admin(kfp.settings())) {
            TopicDescription d =
                    admin.describeTopics(List.of(run.output()))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .get(run.output());
            Map<Integer, Long> led =
                    d.partitions().stream()
                            .filter(p -> p.leader() != null)
                            .collect(
                                    Collectors.groupingBy(
                                            p -> p.leader().id(),
                                            TreeMap::new,
                                            Collectors.counting()));
            return led.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        }
    }

    /** The node id of the broker coordinating most of this run's transactional ids. */
    int transactionCoordinator() throws Exception {
        String prefix = run.transactionalIdPrefix();
        try (Admin admin = Topics.admin(kfp.settings())) {
            List<String> ids =
                    admin
                            .listTransactions(new ListTransactionsOptions())
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .stream()
                            .map(TransactionListing::transactionalId)
                            .filter(id -> id.startsWith(prefix))
                            .toList();
            if (ids.isEmpty()) {
                throw new IllegalStateException("no transactional id of prefix " + prefix + " yet");
            }
            Map<Integer, Long> coordinators =
                    admin
                            .describeTransactions(ids)
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .values()
                            .stream()
                            .collect(
                                    Collectors.groupingBy(
                                            t -> t.coordinatorId(),
                                            TreeMap::new,
                                            Collectors.counting()));
            return coordinators.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();
        }
    }

    /** The host of broker {@code nodeId}: the topology's Kafka hosts are nodes 1, 2, 3, ... */
    Topology.Host brokerHost(int nodeId) {
        Topology.Host host = topology.with(Topology.Role.KAFKA).get(nodeId - 1);
        clock.say("  broker " + nodeId + " is on " + host.name());
        return host;
    }

    Topology.Host leadingJobManager() {
        String leader;
        try (FlinkRest rest = kfp.rest()) {
            leader = rest.leader();
        }
        for (Topology.Host host : topology.with(Topology.Role.JOBMANAGER)) {
            if (leader.contains("//" + host.address() + ":")) {
                clock.say("  the leading JobManager is on " + host.name() + " (" + leader + ")");
                return host;
            }
        }
        throw new IllegalStateException("no JobManager host has the leader's address " + leader);
    }

    /** The number N of a TaskManager (tm-N) running the relay's first subtask. */
    int busyTaskManager() throws Exception {
        String rest;
        try (FlinkRest client = kfp.rest()) {
            rest = client.leader();
        }
        String job = relay.runningJob().toHexString();
        ObjectMapper json = new ObjectMapper();
        HttpClient http = FlinkTls.httpClient(kfp.cluster().writeConf());
        JsonNode details = json.readTree(get(http, rest + "/jobs/" + job));
        String vertex = details.path("vertices").path(0).path("id").asText();
        JsonNode tms =
                json.readTree(
                                get(
                                        http,
                                        rest
                                                + "/jobs/"
                                                + job
                                                + "/vertices/"
                                                + vertex
                                                + "/taskmanagers"))
                        .path("taskmanagers");
        String id = tms.path(0).path("taskmanager-id").asText();
        if (!id.matches("tm-\\d+")) {
            throw new IllegalStateException("no TaskManager runs the relay: " + tms);
        }
        clock.say("  " + id + " runs the relay");
        return Integer.parseInt(id.substring(3));
    }

    private static String get(HttpClient http, String url) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
