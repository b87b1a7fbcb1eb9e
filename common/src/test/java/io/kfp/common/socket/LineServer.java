package io.kfp.common.socket;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP server for tests: each accepted connection runs the next script in line. Closed
 * (with its threads) by the test, also when it fails.
 */
final class LineServer implements AutoCloseable {

    /** What to do with one accepted connection. */
    @FunctionalInterface
    interface Script {
        void run(OutputStream out) throws Exception;
    }

    private final ServerSocket server;
    private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();
    private final Thread acceptor;
    final CountDownLatch firstAccepted = new CountDownLatch(1);
    volatile int accepted;
    volatile Throwable failure;

    LineServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::acceptLoop, "line-server-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    String endpoint() {
        return "127.0.0.1:" + port();
    }

    /** Queues what the next connection will get. */
    LineServer then(Script script) {
        scripts.add(script);
        return this;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                accepted++;
                firstAccepted.countDown();
                Script script = scripts.poll(30, TimeUnit.SECONDS);
                if (script != null) {
                    OutputStream out = socket.getOutputStream();
                    script.run(out);
                    out.flush();
                }
            } catch (IOException closing) {
                if (!server.isClosed()) {
                    failure = closing;
                }
            } catch (InterruptedException closing) {
                return;
            } catch (Exception | AssertionError e) {
                failure = e;
            }
        }
    }

    static Script send(String text) {
        return out -> out.write(text.getBytes(StandardCharsets.UTF_8));
    }

    static Script sendBytes(byte[] bytes) {
        return out -> out.write(bytes);
    }

    @Override
    public void close() throws Exception {
        server.close();
        acceptor.interrupt(); // it may be waiting for a script or inside one
        acceptor.join(TimeUnit.SECONDS.toMillis(10));
    }
}
