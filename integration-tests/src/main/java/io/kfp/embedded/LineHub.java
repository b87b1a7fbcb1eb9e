package io.kfp.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects people to the ingest job. Both sides are TCP clients (people with {@code nc}, the job
 * with its socket source), so the hub listens twice on loopback: on the publish port for people,
 * on the ingest port for the job. Every line published goes to every connected ingest reader;
 * lines published while none is connected wait (up to {@value #MAX_WAITING} of them).
 */
public final class LineHub implements AutoCloseable {

    static final int MAX_WAITING = 100_000;
    private static final Logger LOG = LoggerFactory.getLogger(LineHub.class);

    private final ServerSocket publishServer;
    private final ServerSocket ingestServer;
    private final List<OutputStream> readers = new ArrayList<>();
    private final Deque<byte[]> waiting = new ArrayDeque<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private volatile boolean closed;

    private LineHub(ServerSocket publishServer, ServerSocket ingestServer) {
        this.publishServer = publishServer;
        this.ingestServer = ingestServer;
    }

    /** @param publishPort 0 for any free port */
    public static LineHub start(int publishPort) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        ServerSocket publish = new ServerSocket(publishPort, 50, loopback);
        ServerSocket ingest = new ServerSocket(0, 50, loopback);
        LineHub hub = new LineHub(publish, ingest);
        hub.daemon("hub-publish-accept", hub::acceptPublishers);
        hub.daemon("hub-ingest-accept", hub::acceptReaders);
        return hub;
    }

    public int publishPort() {
        return publishServer.getLocalPort();
    }

    public int ingestPort() {
        return ingestServer.getLocalPort();
    }

    /** Forwards every line of {@code in} (e.g. the launcher's stdin) until it ends. */
    public void forward(InputStream in, String name) {
        daemon(name, () -> pump(in));
    }

    /** Sends one line to the ingest readers. */
    public synchronized void publish(String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        if (readers.isEmpty()) {
            if (waiting.size() < MAX_WAITING) {
                waiting.add(bytes);
            }
            return;
        }
        for (OutputStream reader : new ArrayList<>(readers)) {
            try {
                reader.write(bytes);
                reader.flush();
            } catch (IOException gone) {
                readers.remove(reader);
            }
        }
    }

    private void acceptPublishers() {
        while (!closed) {
            try {
                Socket socket = publishServer.accept();
                track(socket);
                daemon("hub-publisher-" + socket.getPort(), () -> {
                    try {
                        pump(socket.getInputStream());
                    } catch (IOException e) {
                        LOG.info("A publisher went away: {}", e.toString());
                    }
                });
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void acceptReaders() {
        while (!closed) {
            try {
                Socket socket = ingestServer.accept();
                track(socket);
                synchronized (this) {
                    OutputStream out = socket.getOutputStream();
                    while (!waiting.isEmpty()) {
                        out.write(waiting.poll());
                    }
                    out.flush();
                    readers.add(out);
                }
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(InputStream in) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null && !closed; line = lines.readLine()) {
                publish(line);
            }
        } catch (IOException e) {
            if (!closed) {
                LOG.info("An input ended abruptly: {}", e.toString());
            }
        }
    }

    private synchronized void track(Socket socket) {
        sockets.add(socket);
    }

    private void daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        publishServer.close();
        ingestServer.close();
        synchronized (this) {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
