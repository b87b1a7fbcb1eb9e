package io.kfp.deploy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The parts of {@code deploy/bin/kfp} that talk to Kafka's Admin API or Flink's REST API, so the
 * script needs nothing but a JDK. Usage (from the script):
 *
 * <pre>
 *   create-topics BOOTSTRAP PARTITIONS TOPIC...   create missing topics, wait for their leaders
 *   taskmanagers REST_URL                         how many TaskManagers are registered (0 if none answers)
 *   jobs REST_URL                                 one line per job: id, state, name
 *   job-id REST_URL NAME                          the running job of that name
 * </pre>
 */
public final class KfpTool {

    private KfpTool() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
        }
        switch (args[0]) {
            case "create-topics" -> createTopics(args[1], Integer.parseInt(args[2]), List.of(args).subList(3, args.length));
            case "taskmanagers" -> System.out.println(taskManagers(args[1]));
            case "jobs" -> jobs(args[1]).forEach(j -> System.out.println(j.id + " " + j.state + " " + j.name));
            case "job-id" -> {
                List<String> ids = jobs(args[1]).stream()
                        .filter(j -> j.name.equals(args[2]) && !isTerminal(j.state))
                        .map(j -> j.id).toList();
                if (ids.isEmpty()) {
                    System.err.println("kfp: no running job named " + args[2] + " (kfp status lists the jobs).");
                    System.exit(1);
                }
                if (ids.size() > 1) {
                    System.err.println("kfp: " + ids.size() + " running jobs are named " + args[2] + ": " + ids
                            + ". Cancel the extra ones by id (flink cancel ID), or give each its own job.name.");
                    System.exit(1);
                }
                System.out.println(ids.get(0));
            }
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: KfpTool create-topics|taskmanagers|jobs|job-id ...");
        System.exit(2);
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.setProperty("bootstrap.servers", bootstrap);
        props.setProperty("default.api.timeout.ms", "30000");
        return Admin.create(props);
    }

    static void createTopics(String bootstrap, int partitions, List<String> topics) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            for (String topic : topics) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
                    System.out.println("created " + topic + " (" + partitions + " partitions)");
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    System.out.println("exists  " + topic);
                }
            }
            // Producers that meet a partition before its leader is in place can fail badly.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!allLed(admin, topics)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("partitions of " + topics + " have no leader after 30 s");
                }
                Thread.sleep(100);
            }
        }
    }

    /** Whether every partition has a leader; a topic the broker does not know yet has none. */
    private static boolean allLed(Admin admin, List<String> topics) throws Exception {
        try {
            return admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values().stream()
                    .flatMap(d -> d.partitions().stream())
                    .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return false;
            }
            throw e;
        }
    }

    static int taskManagers(String restUrl) {
        try {
            Matcher m = Pattern.compile("\"taskmanagers\":(\\d+)").matcher(get(restUrl + "/overview"));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (Exception e) {
            return 0; // not up yet
        }
    }

    private static String get(String url) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    record Job(String id, String state, String name) {}

    static List<Job> jobs(String restUrl) throws Exception {
        String body = get(restUrl + "/jobs/overview");
        List<Job> jobs = new ArrayList<>();
        Matcher m = Pattern.compile("\\{\"jid\":\"([0-9a-f]+)\",\"name\":\"([^\"]*)\",[^{}]*?\"state\":\"([A-Z_]+)\"").matcher(body);
        while (m.find()) {
            jobs.add(new Job(m.group(1), m.group(3), m.group(2)));
        }
        return jobs;
    }

    private static boolean isTerminal(String state) {
        return state.equals("FINISHED") || state.equals("CANCELED") || state.equals("FAILED");
    }
}
