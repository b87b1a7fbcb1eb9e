package io.kfp.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.embedded.LineHub;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.junit.jupiter.api.Test;

/** The launcher's hub between people (publishers) and the ingest job (reader). */
class LineHubTest {

    private static List<String> read(BufferedReader in, int n) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lines.add(in.readLine());
        }
        return lines;
    }

    @Test
    void linesWaitForTheReaderAndAReconnectingReaderMissesNothingUnsent() throws Exception {
        try (LineHub hub = LineHub.start(0)) {
            hub.publish("early".getBytes(StandardCharsets.UTF_8)); // no reader yet: it waits
            try (Socket reader = new Socket(InetAddress.getLoopbackAddress(), hub.ingestPort());
                    Socket person =
                            new Socket(InetAddress.getLoopbackAddress(), hub.publishPort())) {
                reader.setSoTimeout(10_000);
                BufferedReader in =
                        new BufferedReader(
                                new InputStreamReader(
                                        reader.getInputStream(), StandardCharsets.UTF_8));
                OutputStream out = person.getOutputStream();
                out.write("typed 1\ntyped 2\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                assertThat(read(in, 3)).containsExactly("early", "typed 1", "typed 2");
            }
            // The reader went away (the ingest job restarts): the next line waits for it.
            CommonTestUtils.waitUtil(
                    () -> hub.connectedReaders() == 0,
                    Duration.ofSeconds(10),
                    Duration.ofMillis(100),
                    "the hub to notice the reader left");
            hub.publish("while away".getBytes(StandardCharsets.UTF_8));
            try (Socket reader = new Socket(InetAddress.getLoopbackAddress(), hub.ingestPort())) {
                reader.setSoTimeout(10_000);
                BufferedReader in =
                        new BufferedReader(
                                new InputStreamReader(
                                        reader.getInputStream(), StandardCharsets.UTF_8));
                assertThat(in.readLine()).isEqualTo("while away");
            }
        }
    }
}
