package org.apache.flink.metrics.prometheus;

import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Properties;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.PortRange;

/**
 * Flink's Prometheus reporter, listening on 127.0.0.1 only. Flink's own binds every interface and
 * has no host setting; our processes listen on loopback. It lives in Flink's package because the
 * metric registry it serves is package-private there.
 */
public final class LoopbackPrometheusReporterFactory implements MetricReporterFactory {

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new LoopbackPrometheusReporter(
                new PortRange(properties.getProperty("port", "9249")));
    }

    /** Serves the registry on the first free port of the range, on loopback. */
    static final class LoopbackPrometheusReporter extends AbstractPrometheusReporter {

        private final HTTPServer httpServer;

        LoopbackPrometheusReporter(PortRange ports) {
            HTTPServer server = null;
            Iterator<Integer> candidates = ports.getPortsIterator();
            while (server == null && candidates.hasNext()) {
                int port = candidates.next();
                try {
                    server =
                            new HTTPServer(
                                    new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                                    registry);
                    log.info("Prometheus metrics on http://127.0.0.1:{}/metrics", port);
                } catch (IOException taken) {
                    log.debug("Port {} is taken: {}", port, taken.toString());
                }
            }
            if (server == null) {
                throw new IllegalStateException(
                        "no free port for Prometheus metrics in "
                                + ports
                                + " on 127.0.0.1; widen metrics.reporter.prom.port (KFP_PROM_PORTS)");
            }
            httpServer = server;
        }

        @Override
        public void close() {
            httpServer.stop();
            super.close();
        }
    }
}
