package io.kfp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secret files exist only owner-only, from the moment they are created. */
class SecretsTest {

    @TempDir Path dir;

    @Test
    void aSecretReplacesAWiderFileInsteadOfReusingIt() throws Exception {
        Path file = dir.resolve("password");
        Files.writeString(file, "old");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        Object before = Files.readAttributes(file, "unix:ino").get("ino");

        Secrets.write(file, "s3cret");

        assertThat(Files.readString(file)).isEqualTo("s3cret");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(Files.readAttributes(file, "unix:ino").get("ino"))
                .as("a new file: one opened while it was readable does not see the secret")
                .isNotEqualTo(before);
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).containsExactly(file);
        }
    }

    @Test
    void aSecretDirectoryIsOwnerOnlyFromItsCreation() throws Exception {
        Path secure = dir.resolve("a/security");
        Secrets.directory(secure);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secure)))
                .isEqualTo("rwx------");
    }

    /** Writing a secret and chmod'ing it afterwards leaves a window: only Secrets sets modes. */
    @Test
    void noOtherCodeNarrowsPermissionsAfterTheFact() throws Exception {
        Path main = Path.of("src/main/java");
        try (Stream<Path> sources = Files.walk(main)) {
            List<String> offenders =
                    sources.filter(p -> p.toString().endsWith(".java"))
                            .filter(p -> !p.getFileName().toString().equals("Secrets.java"))
                            .filter(SecretsTest::setsPermissions)
                            .map(p -> main.relativize(p).toString())
                            .toList();
            assertThat(offenders).isEmpty();
        }
    }

    private static boolean setsPermissions(Path source) {
        try {
            return Files.readString(source).contains("setPosixFilePermissions(");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
