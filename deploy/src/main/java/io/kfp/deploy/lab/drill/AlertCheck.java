package io.kfp.deploy.lab.drill;

import java.util.Locale;

/**
 * What Alertmanager showed while the drill broke the checkpoint store: {@code firedAfterSeconds}
 * from the store's stop until {@code alert} fired for the relay, {@code resolvedAfterSeconds} from
 * output flowing again until it was resolved; NaN for what did not happen in time.
 */
public record AlertCheck(String alert, double firedAfterSeconds, double resolvedAfterSeconds) {

    /** Whether the alert fired during the outage and was resolved after it. */
    public boolean ok() {
        return !Double.isNaN(firedAfterSeconds) && !Double.isNaN(resolvedAfterSeconds);
    }

    /** {@code ALERT:fired=S:resolved=S}, {@code -} for what did not happen. */
    String label() {
        return alert
                + ":fired="
                + seconds(firedAfterSeconds)
                + ":resolved="
                + seconds(resolvedAfterSeconds);
    }

    /** One sentence for the report. */
    String sentence() {
        return alert
                + (Double.isNaN(firedAfterSeconds)
                        ? " did not reach Alertmanager during the store's outage"
                        : " reached Alertmanager "
                                + seconds(firedAfterSeconds)
                                + " s after the store stopped")
                + (Double.isNaN(resolvedAfterSeconds)
                        ? ", and was not resolved within "
                                + FaultInjector.ALERT_RESOLUTION.toSeconds()
                                + " s of output flowing again"
                        : " and was resolved "
                                + seconds(resolvedAfterSeconds)
                                + " s after output flowed again");
    }

    private static String seconds(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }
}
