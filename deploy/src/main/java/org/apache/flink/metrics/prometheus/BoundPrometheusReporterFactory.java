package org.apache.flink.metrics.prometheus;

import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Iterator;
import java.util.Properties;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.PortRange;

/**
 * Flink's Prometheus reporter, listening on one address ({@code metrics.reporter.prom.host}: the
 * host's own, 127.0.0.1 on one host). Flink's own binds every interface and has no host setting;
 * our processes listen only where they are meant to be reached. It lives in Flink's package because
 * the metric registry it serves is package-private there.
 */
public final class BoundPrometheusReporterFactory implements MetricReporterFactory {

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new BoundPrometheusReporter(
                properties.getProperty("host", "127.0.0.1"),
                new PortRange(properties.getProperty("port", "9249")));
    }

    /** Serves the registry on the first free port of the range, on {@code host}. */
    static final class BoundPrometheusReporter extends AbstractPrometheusReporter {

        private final HTTPServer httpServer;

        BoundPrometheusReporter(String host, PortRange ports) {
            InetAddress address;
            try {
                address = InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(
                        "metrics.reporter.prom.host '"
                                + host
                                + "' is not an address of this host: give its IP address",
                        e);
            }
            HTTPServer server = null;
            Iterator<Integer> candidates = ports.getPortsIterator();
            while (server == null && candidates.hasNext()) {
                int port = candidates.next();
                try {
                    server = new HTTPServer(new InetSocketAddress(address, port), registry);
                    log.info("Prometheus metrics on http://{}:{}/metrics", host, port);
                } catch (IOException taken) {
                    log.debug("Port {} is taken: {}", port, taken.toString());
                }
            }
            if (server == null) {
                throw new IllegalStateException(
                        "no free port for Prometheus metrics in "
                                + ports
                                + " on "
                                + host
                                + "; widen metrics.reporter.prom.port (KFP_PROM_PORTS)");
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
