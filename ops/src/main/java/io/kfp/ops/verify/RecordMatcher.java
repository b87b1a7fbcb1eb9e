package io.kfp.ops.verify;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Matches the records of an input and an output as multisets, in bounded memory.
 *
 * <p>Each record is reduced to two fingerprints: its <em>content</em> (the first 64 bits of the
 * SHA-256 of key, value, headers and timestamp: equal content, equal fingerprint; two different
 * records share one with a chance of about n&sup2;/2&sup6;&sup5;, 10<sup>-7</sup> for two million)
 * and its <em>identity</em> (a cheap hash of key and timestamp, which an altered copy keeps).
 * Records are spread over buckets by identity, so the copies of a record, and an altered copy with
 * the original, always meet in one bucket. With more records than fit one bucket ({@code
 * bucketEntries}, known before reading from the offset ranges), the buckets are files of 28 bytes
 * per record under the work directory, read back one at a time: memory holds one bucket (about 48
 * bytes per record), never the whole topic.
 *
 * <p>In a bucket, records of equal content pair up input with output: the pairs are matched,
 * further output copies are duplicates. What is left pairs up by identity: an input and an output
 * record of the same key and timestamp are one altered record; an input left alone is missing, an
 * output left alone unexpected.
 */
final class RecordMatcher implements AutoCloseable {

    /** Bytes per record in a bucket file: identity, content, where, offset. */
    static final int ENTRY_BYTES = 8 + 8 + 4 + 8;

    private record Entry(long identity, long content, int where, long offset) {
        boolean output() {
            return (where & 1) == 1;
        }

        int partition() {
            return where >>> 1;
        }
    }

    private static final Comparator<Entry> BY_CONTENT =
            Comparator.comparingLong(Entry::content)
                    .thenComparingInt(e -> e.where() & 1)
                    .thenComparingInt(Entry::where)
                    .thenComparingLong(Entry::offset);
    private static final Comparator<Entry> BY_IDENTITY =
            Comparator.comparingLong(Entry::identity)
                    .thenComparingInt(e -> e.where() & 1)
                    .thenComparingInt(Entry::where)
                    .thenComparingLong(Entry::offset);

    private final MessageDigest sha256;
    private final List<Entry> inMemory;
    private final Path directory;
    private final DataOutputStream[] files;
    private final CopyReport.Builder verdict;

    /**
     * A matcher for about {@code expectedRecords} records (input and output together), at most
     * {@code bucketEntries} of them in memory at once; bucket files go under {@code workDir}.
     */
    RecordMatcher(
            long expectedRecords, int bucketEntries, Path workDir, CopyReport.Builder verdict) {
        this.verdict = verdict;
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        long buckets = Math.max(1, (expectedRecords + bucketEntries - 1) / bucketEntries);
        if (buckets == 1) {
            inMemory = new ArrayList<>();
            directory = null;
            files = null;
        } else {
            inMemory = null;
            files = new DataOutputStream[Math.toIntExact(buckets)];
            try {
                Files.createDirectories(workDir);
                directory = Files.createTempDirectory(workDir, "kfp-verify-");
                // Also on Ctrl-C: the JVM deletes in reverse order, the files before their
                // directory.
                directory.toFile().deleteOnExit();
                for (int i = 0; i < files.length; i++) {
                    files[i] =
                            new DataOutputStream(
                                    new BufferedOutputStream(
                                            Files.newOutputStream(bucket(i)), 16 * 1024));
                    bucket(i).toFile().deleteOnExit();
                }
            } catch (IOException e) {
                close();
                throw new UncheckedIOException(
                        "cannot write the verifier's bucket files under "
                                + workDir
                                + ": "
                                + e.getMessage(),
                        e);
            }
        }
    }

    /** How many buckets the records are spread over (1: all in memory). */
    int buckets() {
        return files == null ? 1 : files.length;
    }

    /** Where the bucket files are, or null when all is in memory. */
    Path directory() {
        return directory;
    }

    void add(
            boolean output,
            int partition,
            long offset,
            byte[] key,
            byte[] value,
            Headers headers,
            long timestamp) {
        Entry entry =
                new Entry(
                        identity(key, timestamp),
                        content(key, value, headers, timestamp),
                        partition << 1 | (output ? 1 : 0),
                        offset);
        if (files == null) {
            inMemory.add(entry);
            return;
        }
        DataOutputStream file = files[(int) Long.remainderUnsigned(entry.identity(), files.length)];
        try {
            file.writeLong(entry.identity());
            file.writeLong(entry.content());
            file.writeInt(entry.where());
            file.writeLong(entry.offset());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write a bucket file under "
                            + directory
                            + " (is the disk full?): "
                            + e.getMessage(),
                    e);
        }
    }

    /** Matches every bucket into the verdict. */
    void match() {
        if (files == null) {
            matchBucket(inMemory);
            inMemory.clear();
            return;
        }
        for (int i = 0; i < files.length; i++) {
            try {
                files[i].close();
                files[i] = null;
                matchBucket(read(bucket(i)));
                Files.delete(bucket(i));
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot read back the bucket file " + bucket(i) + ": " + e.getMessage(), e);
            }
        }
    }

    private void matchBucket(List<Entry> entries) {
        entries.sort(BY_CONTENT);
        List<Entry> left = new ArrayList<>();
        for (int from = 0, to; from < entries.size(); from = to) {
            int[] group = group(entries, from, Entry::content);
            int firstOutput = group[0];
            to = group[1];
            int inputs = firstOutput - from;
            int outputs = to - firstOutput;
            int pairs = Math.min(inputs, outputs);
            // Exactly once: as many copies as the input has; with more, the input's records count
            // under none.
            verdict.matched(outputs > inputs ? 0 : pairs);
            left.addAll(entries.subList(from + pairs, firstOutput));
            Entry input = inputs > 0 ? entries.get(from) : null;
            Entry copy = outputs > 0 ? entries.get(firstOutput) : null;
            if (pairs == 0 && copy != null) {
                // Content the input never had: the first copy is unexpected or altered, the others
                // copies of it.
                left.add(copy);
            }
            // Copies beyond the pairs; with no input of this content, beyond the first.
            for (int i = firstOutput + Math.max(pairs, 1); i < to; i++) {
                Entry extra = entries.get(i);
                verdict.duplicated(
                        () ->
                                at(extra)
                                        + ", a copy of "
                                        + at(copy)
                                        + (input == null ? "" : " (input " + at(input) + ")"));
            }
        }
        left.sort(BY_IDENTITY);
        for (int from = 0, to; from < left.size(); from = to) {
            int[] group = group(left, from, Entry::identity);
            int firstOutput = group[0];
            to = group[1];
            int pairs = Math.min(firstOutput - from, to - firstOutput);
            for (int i = 0; i < pairs; i++) {
                Entry original = left.get(from + i);
                Entry altered = left.get(firstOutput + i);
                verdict.altered(() -> at(original) + " -> " + at(altered));
            }
            left.subList(from + pairs, firstOutput).forEach(e -> verdict.missing(() -> at(e)));
            left.subList(firstOutput + pairs, to).forEach(e -> verdict.unexpected(() -> at(e)));
        }
    }

    /**
     * The group of entries from {@code from} on that share {@code key}, in a list sorted by it with
     * inputs first: {first output, end}, both as indexes.
     */
    private static int[] group(List<Entry> entries, int from, ToLongFunction<Entry> key) {
        long value = key.applyAsLong(entries.get(from));
        int firstOutput = from;
        int to = from;
        for (; to < entries.size() && key.applyAsLong(entries.get(to)) == value; to++) {
            if (!entries.get(to).output()) {
                firstOutput = to + 1;
            }
        }
        return new int[] {firstOutput, to};
    }

    private String at(Entry e) {
        return verdict.at(e.output(), e.partition(), e.offset());
    }

    private static List<Entry> read(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>(Math.toIntExact(Files.size(file) / ENTRY_BYTES));
        try (DataInputStream in =
                new DataInputStream(
                        new BufferedInputStream(Files.newInputStream(file), 64 * 1024))) {
            while (true) {
                long identity;
                try {
                    identity = in.readLong();
                } catch (EOFException end) {
                    return entries;
                }
                entries.add(new Entry(identity, in.readLong(), in.readInt(), in.readLong()));
            }
        }
    }

    private Path bucket(int i) {
        return directory.resolve("bucket-" + i);
    }

    /**
     * Key and timestamp, what an altered copy keeps (64-bit FNV-1a of the key, mixed with the
     * timestamp). Two different keys that collide here only pair a missing with an unexpected
     * record as "altered"; a match needs equal content.
     */
    static long identity(byte[] key, long timestamp) {
        long k = 0xcbf29ce484222325L;
        if (key == null) {
            k = ~k;
        } else {
            for (byte b : key) {
                k = (k ^ (b & 0xff)) * 0x100000001b3L;
            }
        }
        long h = k * 0x9E3779B97F4A7C15L ^ timestamp;
        // MurmurHash3's finalizer: spreads the bits over the buckets.
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    /**
     * Everything the relay must keep, each part length-prefixed so that no two records read alike.
     */
    long content(byte[] key, byte[] value, Headers headers, long timestamp) {
        sha256.reset();
        bytes(key);
        bytes(value);
        Header[] all = headers == null ? new Header[0] : headers.toArray();
        number(all.length);
        for (Header header : all) {
            bytes(header.key().getBytes(StandardCharsets.UTF_8));
            bytes(header.value());
        }
        number(timestamp);
        byte[] digest = sha256.digest();
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = h << 8 | (digest[i] & 0xff);
        }
        return h;
    }

    private void bytes(byte[] b) {
        number(b == null ? -1 : b.length);
        if (b != null) {
            sha256.update(b);
        }
    }

    private void number(long n) {
        for (int i = 56; i >= 0; i -= 8) {
            sha256.update((byte) (n >>> i));
        }
    }

    /** Removes the bucket files, also after a failure. */
    @Override
    public void close() {
        IOException first = null;
        if (files != null) {
            for (DataOutputStream file : files) {
                try {
                    if (file != null) {
                        file.close();
                    }
                } catch (IOException e) {
                    first = first == null ? e : first;
                }
            }
        }
        if (directory != null) {
            try (var listing = Files.list(directory)) {
                for (Path p : listing.toList()) {
                    Files.deleteIfExists(p);
                }
                Files.deleteIfExists(directory);
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw new UncheckedIOException(
                    "cannot remove the verifier's bucket files under "
                            + directory
                            + ": "
                            + first.getMessage(),
                    first);
        }
    }
}
