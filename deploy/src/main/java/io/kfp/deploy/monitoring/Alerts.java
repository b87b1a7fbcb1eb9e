package io.kfp.deploy.monitoring;

import io.kfp.deploy.KfpException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The alerts Alertmanager holds now ({@code GET /api/v2/alerts}: active ones, resolved ones left
 * out), as an operator's pager would see them: what the drill asks while it breaks the checkpoint
 * store.
 */
public final class Alerts {

    /** The rule of conf/prometheus/rules.yml that a stopped checkpoint store fires. */
    public static final String CHECKPOINTS_STALLED = "KfpCheckpointsStalled";

    private final String alertmanagerUrl;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public Alerts(String alertmanagerUrl) {
        this.alertmanagerUrl = alertmanagerUrl;
    }

    /**
     * The jobs ({@code job_name} label, as Flink's reporter exports the job's name) for which
     * {@code alertname} fires now.
     */
    public Set<String> firing(String alertname) {
        String filter =
                URLEncoder.encode("alertname=\"" + alertname + "\"", StandardCharsets.UTF_8);
        String url = alertmanagerUrl + "/api/v2/alerts?active=true&filter=" + filter;
        HttpResponse<String> response;
        try {
            response =
                    http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new KfpException(
                    "Alertmanager at " + alertmanagerUrl + " did not answer: " + e,
                    KfpException.FAILED,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KfpException("interrupted asking Alertmanager", KfpException.FAILED, e);
        }
        if (response.statusCode() != 200) {
            throw new KfpException(
                    "Alertmanager answered " + url + " with " + response.statusCode(),
                    KfpException.FAILED);
        }
        return jobs(response.body());
    }

    /** The {@code job_name} labels of the alerts in Alertmanager's answer. */
    static Set<String> jobs(String answer) {
        Set<String> jobs = new TreeSet<>();
        try {
            for (JsonNode alert : new ObjectMapper().readTree(answer)) {
                jobs.add(alert.path("labels").path("job_name").asText(""));
            }
        } catch (IOException e) {
            throw new KfpException(
                    "Alertmanager's answer is not the alerts' JSON: " + e.getMessage(),
                    KfpException.FAILED,
                    e);
        }
        return jobs;
    }

    /**
     * Whether {@code alertname} fires for {@code job}, whose name Flink's reporter may have turned
     * into a label value with other punctuation.
     */
    public boolean firing(String alertname, String job) {
        return firing(alertname).stream().anyMatch(name -> sameName(name, job));
    }

    static boolean sameName(String label, String job) {
        return label.replaceAll("[^A-Za-z0-9]", "_").equals(job.replaceAll("[^A-Za-z0-9]", "_"));
    }
}
