package io.kfp.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Puts a run's results into benchmarks/README.md between {@code <!-- NAME:begin -->} and {@code
 * <!-- NAME:end -->}, so the README shows what the last run wrote, never a table kept by hand.
 */
final class ReadmeSection {

    private ReadmeSection() {}

    static void replace(Path readme, String name, String content) throws IOException {
        Files.writeString(readme, replaced(Files.readString(readme), name, content));
    }

    static String replaced(String text, String name, String content) {
        String begin = "<!-- " + name + ":begin -->\n";
        String end = "<!-- " + name + ":end -->";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalStateException(
                    "benchmarks/README.md has no '"
                            + begin.trim()
                            + "' ... '"
                            + end
                            + "' section; put the two markers back where the results belong.");
        }
        String body = content.endsWith("\n") ? content : content + "\n";
        return text.substring(0, from + begin.length()) + body + text.substring(to);
    }
}
