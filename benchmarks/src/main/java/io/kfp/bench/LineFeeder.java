package io.kfp.bench;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The socket-source benchmark's line server, in a process of its own so that what the benchmark
 * measures - its JVM's cores and the lines it counts - is the source, not the sender. Listens on a
 * free loopback port, prints it as its first line of output, then sends each of CONNECTIONS
 * accepted connections LINES lines of {@value SocketSourceBenchmark#LINE_BYTES} bytes from a thread
 * of its own, closes them and exits.
 *
 * <p>Usage: {@code LineFeeder LINES CONNECTIONS}.
 */
public final class LineFeeder {

    private LineFeeder() {}

    public static void main(String[] args) throws Exception {
        long lines = Long.parseLong(args[0]);
        int connections = Integer.parseInt(args[1]);
        byte[] block = block();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            System.out.println(server.getLocalPort());
            System.out.flush();
            List<Thread> senders = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                Socket socket = server.accept();
                Thread sender = new Thread(() -> send(socket, block, lines), "sender-" + c);
                sender.start();
                senders.add(sender);
            }
            for (Thread sender : senders) {
                sender.join();
            }
        }
    }

    private static void send(Socket socket, byte[] block, long lines) {
        long blockLines = block.length / SocketSourceBenchmark.LINE_BYTES;
        try (socket;
                OutputStream out = socket.getOutputStream()) {
            for (long sent = 0; sent < lines; sent += blockLines) {
                int n = (int) Math.min(blockLines, lines - sent);
                out.write(block, 0, n * SocketSourceBenchmark.LINE_BYTES);
            }
        } catch (Exception e) {
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
    }

    /** 10,000 lines of 99 'x' and '\n'. */
    private static byte[] block() {
        int lineBytes = SocketSourceBenchmark.LINE_BYTES;
        byte[] line = new byte[lineBytes];
        Arrays.fill(line, (byte) 'x');
        line[lineBytes - 1] = '\n';
        byte[] block = new byte[lineBytes * 10_000];
        for (int i = 0; i < 10_000; i++) {
            System.arraycopy(line, 0, block, i * lineBytes, lineBytes);
        }
        return block;
    }
}
