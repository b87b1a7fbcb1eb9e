package io.kfp.deploy.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alert rules (conf/prometheus/rules.yml) through Prometheus' own {@code promtool}: they parse,
 * each fires and stays silent where rules.test.yml says, and each names a runbook section that
 * exists in deploy/README.md.
 */
class AlertRulesTest {

    static final Path DIR = Path.of("conf", "prometheus").toAbsolutePath();

    private static String promtool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        Process process;
        try {
            process =
                    new ProcessBuilder(command)
                            .directory(DIR.toFile())
                            .redirectErrorStream(true)
                            .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "promtool is not installed: apt-get install prometheus (.ci/run does)", e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + "\n" + output).isZero();
        return output;
    }

    private static List<String> alerts() throws IOException {
        Matcher m =
                Pattern.compile("(?m)^\\s*- alert: (\\w+)")
                        .matcher(Files.readString(DIR.resolve("rules.yml")));
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void everyRuleFiresAndStaysSilentWhereItsTestSays() throws Exception {
        assertThat(promtool("check", "rules", "rules.yml")).contains("SUCCESS");
        assertThat(promtool("test", "rules", "rules.test.yml")).contains("SUCCESS");

        String tests = Files.readString(DIR.resolve("rules.test.yml"));
        assertThat(alerts()).hasSizeGreaterThanOrEqualTo(6);
        for (String alert : alerts()) {
            List<String> cases = new ArrayList<>();
            Matcher m =
                    Pattern.compile(
                                    "alertname: "
                                            + alert
                                            + "\\s+exp_alerts:(\\s*\\[\\]|\\s*\\n\\s+- exp_labels)")
                            .matcher(tests);
            while (m.find()) {
                cases.add(m.group(1).contains("[]") ? "silent" : "firing");
            }
            assertThat(cases).as(alert + " in rules.test.yml").contains("silent", "firing");
        }
    }

    @Test
    void everyRuleNamesARunbookSectionOfTheReadme() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String rules = Files.readString(DIR.resolve("rules.yml"));
        for (String alert : alerts()) {
            assertThat(rules)
                    .contains(
                            "runbook: \"deploy/README.md#" + alert.toLowerCase(Locale.ROOT) + "\"");
            assertThat(readme).as("its runbook section").contains("\n### " + alert + "\n");
        }
    }
}
