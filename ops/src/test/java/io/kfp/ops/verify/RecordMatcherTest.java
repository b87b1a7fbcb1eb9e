package io.kfp.ops.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.kfp.ops.verify.CopyReport.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The matching rules, in memory and spread over bucket files, without a broker. */
class RecordMatcherTest {

    private static final Path WORK = Path.of("target", "record-matcher-test");

    /**
     * 1,000 records relayed with one of each fault planted, plus copies of the same content in the
     * input.
     */
    @ParameterizedTest(name = "at most {0} records per bucket")
    @ValueSource(ints = {RelayVerifier.DEFAULT_BUCKET_ENTRIES, 300, 7})
    void findsEachPlantedFaultAndNothingElse(int bucketEntries) throws Exception {
        CopyReport.Builder builder = new CopyReport.Builder("in", "out", 3);
        Path dir;
        try (RecordMatcher matcher = new RecordMatcher(2_000, bucketEntries, WORK, builder)) {
            dir = matcher.directory();
            assertThat(matcher.buckets()).isEqualTo((2_000 + bucketEntries - 1) / bucketEntries);
            for (int i = 0; i < 1_000; i++) {
                matcher.add(false, i % 4, i / 4, key(i), value(i), headers(i), 1_000L + i);
                switch (i) {
                    case 10 -> {} // missing
                    case 20 -> { // duplicated, on other partitions: only content counts
                        matcher.add(true, 0, 5_000, key(i), value(i), headers(i), 1_000L + i);
                        matcher.add(true, 3, 5_000, key(i), value(i), headers(i), 1_000L + i);
                    }
                    case 30 ->
                            matcher.add(
                                    true,
                                    1,
                                    5_000,
                                    key(i),
                                    value(i),
                                    headers(i).add("extra", new byte[0]),
                                    1_000L + i); // altered headers
                    case 40 ->
                            matcher.add(
                                    true,
                                    2,
                                    5_000,
                                    key(i),
                                    "changed".getBytes(StandardCharsets.UTF_8),
                                    headers(i),
                                    1_000L + i); // altered value
                    case 50 ->
                            matcher.add(
                                    true,
                                    2,
                                    5_001,
                                    key(i),
                                    value(i),
                                    headers(i),
                                    1L); // another timestamp: missing and unexpected
                    default ->
                            matcher.add(
                                    true, (i + 1) % 4, i, key(i), value(i), headers(i), 1_000L + i);
                }
            }
            // The same content twice in the input, once in the output: one copy missing, none
            // duplicated.
            matcher.add(false, 0, 9_000, null, value(1), null, 5L);
            matcher.add(false, 1, 9_000, null, value(1), null, 5L);
            matcher.add(true, 0, 9_000, null, value(1), null, 5L);
            matcher.match();
        }
        CopyReport verdict = builder.build(Duration.ofSeconds(1));

        // Not 10, 30, 40, 50 (missing or altered), not 20 (copied twice); of the input's twins, one
        // is held once.
        assertThat(verdict.matched()).isEqualTo(1_000 - 5 + 1);
        assertThat(verdict.count(Kind.MISSING)).isEqualTo(3);
        assertThat(verdict.count(Kind.DUPLICATED)).isEqualTo(1);
        assertThat(verdict.count(Kind.ALTERED)).isEqualTo(2);
        assertThat(verdict.count(Kind.UNEXPECTED)).isEqualTo(1);
        assertThat(verdict.clean()).isFalse();
        assertThat(verdict.examples(Kind.MISSING)).contains("in-2@2", "in-2@12");
        assertThat(verdict.examples(Kind.DUPLICATED))
                .singleElement()
                .asString()
                .matches("out-[03]@5000, a copy of out-[03]@5000 \\(input in-0@5\\)");
        assertThat(verdict.examples(Kind.ALTERED))
                .containsExactlyInAnyOrder("in-2@7 -> out-1@5000", "in-0@10 -> out-2@5000");
        assertThat(verdict.examples(Kind.UNEXPECTED)).containsExactly("out-2@5001");
        if (dir != null) {
            assertThat(dir).as("bucket files are removed").doesNotExist();
        }
    }

    @ParameterizedTest(name = "at most {0} records per bucket")
    @ValueSource(ints = {RelayVerifier.DEFAULT_BUCKET_ENTRIES, 5})
    void aFaithfulCopyIsClean(int bucketEntries) {
        CopyReport.Builder builder = new CopyReport.Builder("in", "out", 3);
        try (RecordMatcher matcher = new RecordMatcher(200, bucketEntries, WORK, builder)) {
            for (int i = 0; i < 100; i++) {
                matcher.add(false, 0, i, key(i), value(i), headers(i), i);
                matcher.add(true, 1, 99 - i, key(i), value(i), headers(i), i);
            }
            matcher.match();
        }
        CopyReport verdict = builder.build(Duration.ofSeconds(1));
        assertThat(verdict.clean()).isTrue();
        assertThat(verdict.matched()).isEqualTo(100);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"key", "value", "header key", "header value", "timestamp", "null key"})
    void anyByteThatDiffersMakesAnotherContent(String part) {
        RecordMatcher matcher =
                new RecordMatcher(1, 10, WORK, new CopyReport.Builder("in", "out", 1));
        long original =
                matcher.content(
                        bytes("k"), bytes("v"), new RecordHeaders().add("h", bytes("x")), 1);
        long changed =
                switch (part) {
                    case "key" ->
                            matcher.content(
                                    bytes("K"),
                                    bytes("v"),
                                    new RecordHeaders().add("h", bytes("x")),
                                    1);
                    case "value" ->
                            matcher.content(
                                    bytes("k"),
                                    bytes("V"),
                                    new RecordHeaders().add("h", bytes("x")),
                                    1);
                    case "header key" ->
                            matcher.content(
                                    bytes("k"),
                                    bytes("v"),
                                    new RecordHeaders().add("H", bytes("x")),
                                    1);
                    case "header value" ->
                            matcher.content(
                                    bytes("k"),
                                    bytes("v"),
                                    new RecordHeaders().add("h", bytes("X")),
                                    1);
                    case "timestamp" ->
                            matcher.content(
                                    bytes("k"),
                                    bytes("v"),
                                    new RecordHeaders().add("h", bytes("x")),
                                    2);
                    default ->
                            matcher.content(
                                    null, bytes("v"), new RecordHeaders().add("h", bytes("x")), 1);
                };
        assertThat(changed).isNotEqualTo(original);
        // Length prefixes: moving a byte from key to value is a change too.
        assertThat(matcher.content(bytes("kv"), bytes(""), null, 1))
                .isNotEqualTo(matcher.content(bytes("k"), bytes("v"), null, 1));
        matcher.close();
    }

    @Test
    void offsetRangesAreParsedAndBadOnesNamed() {
        RelayVerifier.Range range = RelayVerifier.Range.parseOffsets("0:1200-5000, 1:1180");
        assertThat(range.offsets()).containsOnlyKeys(0, 1);
        assertThat(range.offsets().get(0)).containsExactly(1200, 5000);
        assertThat(range.offsets().get(1)).containsExactly(1180, -1);
        Assertions.assertThatThrownBy(() -> RelayVerifier.Range.parseOffsets("0:12-5"))
                .hasMessage("'0:12-5' ends before it starts");
        Assertions.assertThatThrownBy(() -> RelayVerifier.Range.parseOffsets("0=12"))
                .hasMessage("'0=12' is not PARTITION:START[-END], e.g. 0:1200-5000 or 1:1180");
        Assertions.assertThatThrownBy(() -> RelayVerifier.Range.parseOffsets("1:0,1:4"))
                .hasMessage("partition 1 is listed twice");
    }

    private static byte[] key(int i) {
        return bytes("key-" + i % 50);
    }

    private static byte[] value(int i) {
        return bytes("seq-" + i);
    }

    private static Headers headers(int i) {
        return i % 3 == 0
                ? new RecordHeaders()
                : new RecordHeaders().add("n", bytes(String.valueOf(i)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static {
        try {
            Files.createDirectories(WORK);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
