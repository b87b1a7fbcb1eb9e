package io.kfp.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files only their owner may read - passwords, keys, configuration holding a secret - and the
 * directories that hold them: created with those permissions, so there is no moment in which anyone
 * else could open them (a file written and then chmod'ed can be opened in between, and an opened
 * file stays readable after the chmod).
 */
public final class Secrets {

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private Secrets() {}

    /**
     * Writes {@code content} to {@code file}: into a new owner-only file beside it, then moved over
     * it, so an existing file with wider permissions is replaced, never reused.
     */
    public static void write(Path file, String content) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path fresh =
                    Files.createTempFile(dir, "." + file.getFileName(), ".new", OWNER_ONLY_FILE);
            try {
                Files.writeString(fresh, content, StandardCharsets.UTF_8);
                Files.move(
                        fresh,
                        file,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(fresh);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    /**
     * Creates {@code dir} (and its missing parents, with the default permissions) owner-only; an
     * existing one is made owner-only.
     */
    public static void directory(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY_DIRECTORY.value());
                return;
            }
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createDirectory(dir, OWNER_ONLY_DIRECTORY);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dir, e);
        }
    }
}
