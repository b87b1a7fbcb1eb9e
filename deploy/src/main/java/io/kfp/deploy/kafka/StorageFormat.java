package io.kfp.deploy.kafka;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Kafka's {@code kafka-storage.sh format} for the secure broker, run in its own JVM by {@link
 * KafkaBroker}: the SCRAM users' {@code --add-scram} arguments, which hold their passwords, are
 * read from the run directory here and handed to StorageTool in memory, so no password is ever on a
 * command line ({@code ps}, {@code /proc/PID/cmdline}). StorageTool prints the bootstrap records it
 * writes, the users' salted keys among them; those are cut from its output (the format log).
 *
 * <p>Arguments: the run directory, the users (comma-separated names), then StorageTool's own
 * ({@code format -t ID -c FILE ...}). It runs on Kafka's classpath, which has no Flink.
 */
public final class StorageFormat {

    private StorageFormat() {}

    public static void main(String[] args) {
        List<String> storageTool = new ArrayList<>(List.of(args).subList(2, args.length));
        storageTool.addAll(
                new KafkaSecurity(Path.of(args[0])).scramArguments(List.of(args[1].split(","))));
        System.setOut(
                new PrintStream(new WithoutScramKeys(System.out), true, StandardCharsets.UTF_8));
        kafka.tools.StorageTool.main(storageTool.toArray(String[]::new));
    }

    /** Passes output on line by line, each SCRAM credential record reduced to its user's name. */
    static final class WithoutScramKeys extends OutputStream {
        private final PrintStream target;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        WithoutScramKeys(PrintStream target) {
            this.target = target;
        }

        static String filter(String text) {
            return text.replaceAll(
                    "UserScramCredentialRecord\\(name='([^']*)'[^)]*\\)",
                    "UserScramCredentialRecord(name='$1', keys not shown)");
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                target.println(filter(line.toString(StandardCharsets.UTF_8)));
                line.reset();
            } else {
                line.write(b);
            }
        }

        /** Only whole lines go out: a record cut in two would escape the filter. */
        @Override
        public void flush() {
            target.flush();
        }
    }
}
