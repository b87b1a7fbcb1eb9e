package io.kfp.deploy.job;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Each job's jars by version in the run directory ({@code jars/<job>/<version>.jar}), so that the
 * version running can be submitted again after an upgrade that failed, and which version runs
 * ({@code jars/<job>/running}). A version is the project's version and the git commit checked out
 * when kfp keeps the jar - {@code 0.1.0-SNAPSHOT+3f2c1a9e07}, with {@code .dirty-<first bytes of
 * the jar's SHA-256>} when tracked files had changes - so two different builds never share a name.
 */
public final class JobJars {

    /** A kept jar. */
    public record Version(String name, Path jar) {}

    /** The version last submitted, and the job options it was submitted with (no restore path). */
    public record Running(Version version, List<String> args) {}

    /** Options that say where a start restores from, not how the job runs. */
    private static final Set<String> RESTORE_OPTIONS =
            Set.of("--checkpoint.restore-from", "--checkpoint.allow-non-restored-state");

    private final KfpSettings settings;

    public JobJars(KfpSettings settings) {
        this.settings = settings;
    }

    /** Keeps the job's built jar under its version (once) and returns it. */
    public Version keep(DeployedJob job) {
        Path built = job.jar();
        if (!Files.isRegularFile(built)) {
            throw new KfpException(built + " is missing: run 'kfp build' first.");
        }
        return store(job, built, versionOf(built));
    }

    /**
     * Keeps {@code jar}, a build of the job from elsewhere (null: the built one), under a version
     * named by its file and content: {@code relay-job-0.1.0+sha-3f2c1a9e07}.
     */
    public Version keep(DeployedJob job, Path jar) {
        if (jar == null) {
            return keep(job);
        }
        if (!Files.isRegularFile(jar)) {
            throw new KfpException("--jar " + jar + ": no such file.");
        }
        String main = mainClass(jar);
        String expected = Files.isRegularFile(job.jar()) ? mainClass(job.jar()) : null;
        if (main == null || (expected != null && !expected.equals(main))) {
            throw new KfpException(
                    "--jar "
                            + jar
                            + " is no jar of "
                            + job.name()
                            + ": its Main-Class is "
                            + main
                            + ", "
                            + job.module()
                            + "'s is "
                            + expected
                            + ".");
        }
        String name =
                jar.getFileName().toString().replaceFirst("\\.jar$", "")
                        + "+sha-"
                        + sha256(jar).substring(0, 10);
        return store(job, jar, name);
    }

    private Version store(DeployedJob job, Path jar, String name) {
        Path kept = dir(job).resolve(name + ".jar");
        try {
            Files.createDirectories(kept.getParent());
            if (!Files.exists(kept)) {
                Path partial = kept.resolveSibling(kept.getFileName() + ".partial");
                Files.copy(jar, partial, StandardCopyOption.REPLACE_EXISTING);
                Files.move(partial, kept, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Version(name, kept);
    }

    private static String mainClass(Path jar) {
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
            java.util.jar.Manifest manifest = file.getManifest();
            return manifest == null
                    ? null
                    : manifest.getMainAttributes()
                            .getValue(java.util.jar.Attributes.Name.MAIN_CLASS);
        } catch (IOException e) {
            throw new KfpException(jar + " is no jar: " + e.getMessage());
        }
    }

    /** The version kfp last submitted of the job, if its jar is still kept. */
    public Optional<Running> running(DeployedJob job) {
        Path marker = dir(job).resolve("running");
        try {
            if (!Files.isRegularFile(marker)) {
                return Optional.empty();
            }
            List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
            String name = lines.get(0).trim();
            Path jar = dir(job).resolve(name + ".jar");
            return Files.isRegularFile(jar)
                    ? Optional.of(
                            new Running(new Version(name, jar), lines.subList(1, lines.size())))
                    : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records {@code version} as the one running, submitted with {@code args}. */
    public void markRunning(DeployedJob job, Version version, List<String> args) {
        List<String> lines = new ArrayList<>(List.of(version.name()));
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (RESTORE_OPTIONS.contains(arg)) {
                i++;
            } else if (RESTORE_OPTIONS.stream().noneMatch(o -> arg.startsWith(o + "="))) {
                lines.add(arg);
            }
        }
        try {
            Path marker = dir(job).resolve("running");
            Files.createDirectories(marker.getParent());
            Files.write(marker, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Why a savepoint kfp took was taken, and of which version. */
    public record Taken(String reason, String version) {}

    /** Notes that kfp took {@code savepoint} of the job, for {@code reason}. */
    public void recordSavepoint(DeployedJob job, String savepoint, String reason) {
        String version = running(job).map(r -> r.version().name()).orElse("-");
        try {
            Path history = dir(job).resolve("savepoints");
            Files.createDirectories(history.getParent());
            Files.writeString(
                    history,
                    savepoint + "\t" + reason + "\t" + version + "\n",
                    StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The savepoints kfp took of the job: path -> why and of which version. */
    public java.util.Map<String, Taken> savepointsTaken(DeployedJob job) {
        java.util.Map<String, Taken> taken = new java.util.HashMap<>();
        Path history = dir(job).resolve("savepoints");
        try {
            if (Files.isRegularFile(history)) {
                for (String line : Files.readAllLines(history, StandardCharsets.UTF_8)) {
                    String[] fields = line.split("\t");
                    if (fields.length == 3) {
                        taken.put(fields[0], new Taken(fields[1], fields[2]));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return taken;
    }

    /**
     * After retention: forgets the savepoints that are no longer in the store ({@code left} holds
     * every state that is), and deletes the kept jars of versions that neither run nor took a
     * savepoint that is left; returns the versions deleted.
     */
    public List<String> forget(DeployedJob job, java.util.Collection<String> left) {
        Path history = dir(job).resolve("savepoints");
        try {
            java.util.Set<String> inUse = new java.util.HashSet<>();
            running(job).ifPresent(r -> inUse.add(r.version().name()));
            if (Files.isRegularFile(history)) {
                List<String> kept = new ArrayList<>();
                for (String line : Files.readAllLines(history, StandardCharsets.UTF_8)) {
                    String[] fields = line.split("\t");
                    if (fields.length == 3 && left.contains(fields[0])) {
                        kept.add(line);
                        inUse.add(fields[2]);
                    }
                }
                Files.write(history, kept, StandardCharsets.UTF_8);
            }
            List<String> removed = new ArrayList<>();
            if (!Files.isDirectory(dir(job))) {
                return removed;
            }
            try (var jars = Files.list(dir(job))) {
                for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
                    String version = jar.getFileName().toString().replaceFirst("\\.jar$", "");
                    if (!inUse.contains(version)) {
                        Files.delete(jar);
                        removed.add(version);
                    }
                }
            }
            return removed;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path dir(DeployedJob job) {
        return settings.run().resolve("jars").resolve(job.name());
    }

    private String versionOf(Path jar) {
        String commit = git("rev-parse", "--short=10", "HEAD");
        String name = settings.version() + "+" + (commit.isEmpty() ? "nogit" : commit);
        if (commit.isEmpty() || !git("status", "--porcelain", "--untracked-files=no").isEmpty()) {
            name += ".dirty-" + sha256(jar).substring(0, 10);
        }
        return name;
    }

    /** What git prints for {@code args} in the repository, or "" when git cannot say. */
    private String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-C", settings.repo().toString()));
        command.addAll(List.of(args));
        try {
            Process git =
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!git.waitFor(30, TimeUnit.SECONDS)) {
                git.destroyForcibly();
                return "";
            }
            return git.exitValue() == 0 ? out.trim() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
