package io.kfp.ops.verify;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What {@link RelayVerifier} found: how many input records the output holds exactly once, and how
 * many are missing, duplicated, altered or unexpected, each with its first few examples ({@code
 * topic-partition@offset}).
 */
public final class CopyReport {

    /** How an output can differ from its input. */
    public enum Kind {
        /** An input record not in the output, and no altered copy of it there either. */
        MISSING("missing", "input records not in the output"),
        /** An output record more often than the input has it. */
        DUPLICATED("duplicated", "output records that are a further copy of one already there"),
        /**
         * An output record with the key and timestamp of a missing input record, but another value
         * or other headers.
         */
        ALTERED(
                "altered",
                "input records whose copy has the same key and timestamp but another value or headers"),
        /** An output record the input does not have, not even with its key and timestamp. */
        UNEXPECTED("unexpected", "output records that match no input record");

        final String label;
        final String meaning;

        Kind(String label, String meaning) {
            this.label = label;
            this.meaning = meaning;
        }
    }

    private final String from;
    private final String to;
    private final long inputRecords;
    private final long outputRecords;
    private final long matched;
    private final Map<Kind, Long> counts;
    private final Map<Kind, List<String>> examples;
    private final int buckets;
    private final Duration took;

    private CopyReport(Builder b, Duration took) {
        this.from = b.from;
        this.to = b.to;
        this.inputRecords = b.inputRecords;
        this.outputRecords = b.outputRecords;
        this.matched = b.matched;
        this.counts = Collections.unmodifiableMap(new EnumMap<>(b.counts));
        this.examples = Collections.unmodifiableMap(new EnumMap<>(b.examples));
        this.buckets = b.buckets;
        this.took = took;
    }

    /**
     * Whether every input record is in the output exactly once and the output holds nothing else.
     */
    public boolean clean() {
        return counts.values().stream().allMatch(c -> c == 0);
    }

    public long count(Kind kind) {
        return counts.get(kind);
    }

    /**
     * The first few examples of {@code kind}, as {@code topic-partition@offset} and what they are.
     */
    public List<String> examples(Kind kind) {
        return examples.get(kind);
    }

    public long inputRecords() {
        return inputRecords;
    }

    public long outputRecords() {
        return outputRecords;
    }

    /** Input records whose output holds them exactly once. */
    public long matched() {
        return matched;
    }

    /** The counts and examples on one line, for a test's failure message. */
    @Override
    public String toString() {
        StringBuilder line =
                new StringBuilder(
                        "input "
                                + inputRecords
                                + ", output "
                                + outputRecords
                                + ", exactly once "
                                + matched);
        for (Kind kind : Kind.values()) {
            line.append(", ")
                    .append(kind.label)
                    .append(' ')
                    .append(counts.get(kind))
                    .append(' ')
                    .append(examples.get(kind));
        }
        return line.toString();
    }

    /** The report kfp verify prints. */
    public void print(PrintStream out) {
        int width = String.valueOf(Math.max(inputRecords, outputRecords)).length();
        String row = "  %-12s %" + width + "d  %s%n";
        out.printf(Locale.ROOT, "input  %s: %d records%n", from, inputRecords);
        out.printf(Locale.ROOT, "output %s: %d records%n", to, outputRecords);
        out.printf(
                Locale.ROOT,
                row,
                "exactly once",
                matched,
                "input records the output holds once, byte for byte");
        for (Kind kind : Kind.values()) {
            out.printf(Locale.ROOT, row, kind.label, counts.get(kind), kind.meaning);
            for (String example : examples.get(kind)) {
                out.println("      " + example);
            }
            if (counts.get(kind) > examples.get(kind).size()) {
                out.println(
                        "      ... and "
                                + (counts.get(kind) - examples.get(kind).size())
                                + " more");
            }
        }
        double seconds = Math.max(took.toMillis(), 1) / 1000.0;
        out.printf(
                Locale.ROOT,
                "read and matched %d records in %.1f s (%,.0f records/s)%s%n",
                inputRecords + outputRecords,
                seconds,
                (inputRecords + outputRecords) / seconds,
                buckets == 1 ? "" : ", in " + buckets + " buckets on disk");
        out.println(
                clean()
                        ? "clean: every input record is in the output exactly once (key, value, headers and timestamp alike)"
                        : "NOT clean: the output is not an exactly-once copy of the input");
    }

    /** Collects counts and examples while records are matched. */
    static final class Builder {
        private final String from;
        private final String to;
        private final int maxExamples;
        private final Map<Kind, Long> counts = new EnumMap<>(Kind.class);
        private final Map<Kind, List<String>> examples = new EnumMap<>(Kind.class);
        private long inputRecords;
        private long outputRecords;
        private long matched;
        private int buckets = 1;

        Builder(String from, String to, int maxExamples) {
            this.from = from;
            this.to = to;
            this.maxExamples = maxExamples;
            for (Kind kind : Kind.values()) {
                counts.put(kind, 0L);
                examples.put(kind, new ArrayList<>());
            }
        }

        void read(boolean output, long records) {
            if (output) {
                outputRecords += records;
            } else {
                inputRecords += records;
            }
        }

        void matched(long pairs) {
            matched += pairs;
        }

        void missing(Supplier<String> example) {
            add(Kind.MISSING, example);
        }

        void duplicated(Supplier<String> example) {
            add(Kind.DUPLICATED, example);
        }

        void altered(Supplier<String> example) {
            add(Kind.ALTERED, example);
        }

        void unexpected(Supplier<String> example) {
            add(Kind.UNEXPECTED, example);
        }

        private void add(Kind kind, Supplier<String> example) {
            counts.merge(kind, 1L, Long::sum);
            if (examples.get(kind).size() < maxExamples) {
                examples.get(kind).add(example.get());
            }
        }

        String at(boolean output, int partition, long offset) {
            return (output ? to : from) + "-" + partition + "@" + offset;
        }

        void buckets(int buckets) {
            this.buckets = buckets;
        }

        CopyReport build(Duration took) {
            return new CopyReport(this, took);
        }
    }
}
