package io.kfp.deploy;

import java.io.PrintStream;
import java.util.Locale;

/**
 * How far a long kfp command is: on a terminal a bar redrawn in place ({@code waiting for
 * TaskManagers [######------] 2/3, 14 s}); in a pipe one plain line each time the count moves, so a
 * log shows the steps without control codes.
 */
public final class Progress {

    private static final int WIDTH = 20;

    private final PrintStream out;
    private final boolean terminal;
    private final String what;
    private final int total;
    private final long started = System.nanoTime();
    private int shown = -1;

    public Progress(PrintStream out, boolean terminal, String what, int total) {
        this.out = out;
        this.terminal = terminal;
        this.what = what;
        this.total = total;
    }

    /** Whether kfp's output is a terminal (stdin and stdout, as Java sees it). */
    public static boolean onTerminal() {
        return System.console() != null;
    }

    /** Shows {@code done} of the total; in a pipe only when it changed. */
    public void update(int done) {
        if (!terminal && done == shown) {
            return;
        }
        shown = done;
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        int filled = total == 0 ? WIDTH : Math.min(WIDTH, done * WIDTH / total);
        String line =
                terminal
                        ? String.format(
                                Locale.ROOT,
                                "\r%s [%s%s] %d/%d, %d s",
                                what,
                                "#".repeat(filled),
                                "-".repeat(WIDTH - filled),
                                done,
                                total,
                                seconds)
                        : String.format(
                                Locale.ROOT, "%s: %d/%d after %d s%n", what, done, total, seconds);
        out.print(line);
        out.flush();
    }

    /** Ends the bar's line on a terminal. */
    public void done() {
        if (terminal && shown >= 0) {
            out.println();
        }
    }
}
