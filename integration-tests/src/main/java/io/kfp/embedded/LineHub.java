package io.kfp.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects people to the ingest job. Both sides are TCP clients (people with {@code nc}, the job
 * with its socket source), so the hub listens twice on loopback: on the publish port for people, on
 * the ingest port for the job. Every line published goes to every connected ingest reader.
 *
 * <p>Each reader has its own writer thread and a bounded queue, so a slow reader pushes back on the
 * publishers without stalling the hub, and a watcher that notices at once when the reader goes away
 * (the ingest job restarting): lines it had not been sent wait for the next reader, like lines
 * published while none is connected (up to {@value #MAX_WAITING}; more are dropped and counted).
 * Lines longer than {@value #MAX_LINE_BYTES} bytes are cut there.
 */
public final class LineHub implements AutoCloseable {

    private final AtomicLong published = new AtomicLong();

    static final int MAX_WAITING = 100_000;
    static final int MAX_LINE_BYTES = 1024 * 1024;
    private static final int READER_QUEUE = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(LineHub.class);

    private final ServerSocket publishServer;
    private final ServerSocket ingestServer;
    private final List<Reader> readers = new CopyOnWriteArrayList<>();
    private final Deque<byte[]> waiting = new ArrayDeque<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private long dropped;
    private volatile boolean closed;

    private LineHub(ServerSocket publishServer, ServerSocket ingestServer) {
        this.publishServer = publishServer;
        this.ingestServer = ingestServer;
    }

    /**
     * @param publishPort 0 for any free port
     */
    public static LineHub start(int publishPort) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        ServerSocket publish = new ServerSocket(publishPort, 50, loopback);
        ServerSocket ingest;
        try {
            ingest = new ServerSocket(0, 50, loopback);
        } catch (IOException e) {
            publish.close();
            throw e;
        }
        LineHub hub = new LineHub(publish, ingest);
        daemon("hub-publish-accept", hub::acceptPublishers);
        daemon("hub-ingest-accept", hub::acceptReaders);
        return hub;
    }

    public int publishPort() {
        return publishServer.getLocalPort();
    }

    public int ingestPort() {
        return ingestServer.getLocalPort();
    }

    /** Ingest connections currently served. */
    public int connectedReaders() {
        return readers.size();
    }

    /** Forwards every line of {@code in} (e.g. the launcher's stdin) until it ends. */
    public void forward(InputStream in, String name) {
        daemon(name, () -> pump(in));
    }

    /** How many lines were published (typed, or sent through the publish port) so far. */
    public long published() {
        return published.get();
    }

    /** Sends one line (without its newline) to the ingest readers, or keeps it for the next one. */
    public void publish(byte[] line) throws InterruptedException {
        published.incrementAndGet();
        byte[] bytes = new byte[line.length + 1];
        System.arraycopy(line, 0, bytes, 0, line.length);
        bytes[line.length] = '\n';
        List<Reader> current;
        synchronized (this) {
            current = List.copyOf(readers);
            if (current.isEmpty()) {
                keep(bytes);
                return;
            }
        }
        for (Reader reader : current) {
            reader.queue.put(bytes); // blocks while that reader is behind: backpressure
        }
    }

    private synchronized void keep(byte[] line) {
        if (waiting.size() < MAX_WAITING) {
            waiting.add(line);
        } else if (dropped++ % 10_000 == 0) {
            LOG.warn("No ingest reader for a while: {} line(s) dropped so far.", dropped);
        }
    }

    private void acceptPublishers() {
        while (!closed) {
            try {
                Socket socket = publishServer.accept();
                sockets.add(socket);
                daemon(
                        "hub-publisher-" + socket.getPort(),
                        () -> {
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
                sockets.add(socket);
                Reader reader = new Reader(socket);
                synchronized (this) {
                    while (!waiting.isEmpty() && reader.queue.remainingCapacity() > 0) {
                        reader.queue.add(waiting.poll());
                    }
                    readers.add(reader);
                }
                daemon("hub-writer-" + socket.getPort(), reader::write);
                daemon("hub-watcher-" + socket.getPort(), reader::watch);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Reads lines of at most MAX_LINE_BYTES bytes (the rest of a longer line is skipped). */
    private void pump(InputStream raw) {
        try (InputStream in = new BufferedInputStream(raw)) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b >= 0 && !closed; b = in.read()) {
                if (b == '\n') {
                    publish(line.toByteArray());
                    line.reset();
                } else if (line.size() < MAX_LINE_BYTES) {
                    line.write(b);
                }
            }
            if (line.size() > 0 && !closed) {
                publish(line.toByteArray());
            }
        } catch (IOException e) {
            if (!closed) {
                LOG.info("An input ended abruptly: {}", e.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One ingest connection: its queue, a thread writing it, a thread noticing its end. */
    private final class Reader {
        final Socket socket;
        final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(READER_QUEUE);
        volatile boolean gone;

        Reader(Socket socket) {
            this.socket = socket;
        }

        void write() {
            try {
                OutputStream out = socket.getOutputStream();
                while (!gone && !closed) {
                    byte[] line = queue.poll(200, TimeUnit.MILLISECONDS);
                    if (line == null) {
                        continue;
                    }
                    out.write(line);
                    if (queue.isEmpty()) {
                        out.flush();
                    }
                }
            } catch (IOException e) {
                LOG.info("The ingest job's connection broke: {}", e.toString());
                leave();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The ingest job never sends: reading returns -1 (or fails) when it closes the socket. */
        void watch() {
            try {
                while (socket.getInputStream().read() >= 0) {
                    // nothing is expected from the ingest job; keep waiting for its end
                }
            } catch (IOException e) {
                LOG.debug("The ingest job's connection was reset: {}", e.toString()); // an end too
            }
            leave();
        }

        /** Unsent lines go back to the waiting list, for the next connection of the ingest job. */
        private void leave() {
            synchronized (LineHub.this) {
                if (gone) {
                    return;
                }
                gone = true;
                readers.remove(this);
                List<byte[]> unsent = new ArrayList<>();
                queue.drainTo(unsent);
                unsent.forEach(LineHub.this::keep);
            }
            try {
                socket.close();
            } catch (IOException e) {
                LOG.debug("closing an ingest connection: {}", e.toString());
            }
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        publishServer.close();
        ingestServer.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
