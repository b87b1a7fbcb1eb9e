package io.kfp.deploy.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Reading Alertmanager's answer; the drill asks a real one (LabFaultMatrixTest). */
class AlertsTest {

    @Test
    void theJobsOfTheAlertsInAlertmanagersAnswer() {
        String answer =
                "[{\"labels\":{\"alertname\":\"KfpCheckpointsStalled\",\"job_name\":\"drill_relay\"},"
                        + "\"status\":{\"state\":\"active\"}},"
                        + "{\"labels\":{\"alertname\":\"KfpCheckpointsStalled\",\"job_name\":\"dedup\"}}]";
        assertThat(Alerts.jobs(answer)).containsExactly("dedup", "drill_relay");
        assertThat(Alerts.jobs("[]")).isEmpty();
        assertThatThrownBy(() -> Alerts.jobs("<html>"))
                .hasMessageContaining("not the alerts' JSON");
    }

    @Test
    void aJobIsKnownByItsNameWhateverPunctuationTheLabelHas() {
        assertThat(Alerts.sameName("drill_relay", "drill-relay")).isTrue();
        assertThat(Alerts.sameName("drill-relay", "drill-relay")).isTrue();
        assertThat(Alerts.sameName("drill_relay2", "drill-relay")).isFalse();
    }
}
