package io.kfp.deploy.job;

import io.kfp.common.entry.JobProvider;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import io.kfp.ops.jobs.JobModules;
import io.kfp.ops.jobs.JobOwnership;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import org.apache.flink.configuration.Configuration;

/**
 * Every job kfp deploys: the job modules of the repository kfp runs from ({@link JobModules}: the
 * root pom's modules that name a {@link JobProvider}), each with its spec loaded from its built jar
 * with kfp's classes as parent, as the cluster loads it. The pom says which jobs exist even before
 * a build, so a job that is not built yet is reported as such rather than missing.
 */
public final class JobCatalog {

    private final KfpSettings settings;
    private final Map<String, String> modules;
    private final Map<String, DeployedJob> loaded = new LinkedHashMap<>();

    private JobCatalog(KfpSettings settings, Map<String, String> modules) {
        this.settings = settings;
        this.modules = modules;
    }

    /** The job modules of the repository kfp runs from. */
    public static JobCatalog of(KfpSettings settings) {
        return new JobCatalog(settings, modules(settings.repo()));
    }

    /** The kfp names of {@code repo}'s job modules, from its pom alone (no build needed). */
    public static List<String> jobNames(Path repo) {
        return List.copyOf(modules(repo).keySet());
    }

    private static Map<String, String> modules(Path repo) {
        try {
            return JobModules.of(repo);
        } catch (IllegalArgumentException e) {
            throw new KfpException(e.getMessage(), KfpException.USER_ERROR, e);
        }
    }

    /** The kfp names of every job module, in the parent pom's order. */
    public List<String> names() {
        return List.copyOf(modules.keySet());
    }

    /**
     * The jobs whose jar is built and whole, each loaded: what commands about every job go over. A
     * job whose jar is missing, or still being written by a build, is left out.
     */
    public List<DeployedJob> built() {
        return modules.entrySet().stream()
                .filter(e -> whole(jar(e.getValue())))
                .map(e -> job(e.getKey()))
                .toList();
    }

    private static boolean whole(Path jar) {
        if (!Files.isRegularFile(jar)) {
            return false;
        }
        // A zip's directory is written last: a jar that opens with its service file is complete.
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.getEntry(JobProvider.SERVICE_FILE) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private Path jar(String module) {
        return settings.repo()
                .resolve(module)
                .resolve("target")
                .resolve(module + "-" + settings.version() + "-job.jar");
    }

    /** The job kfp calls {@code name}, loaded from its built jar. */
    public DeployedJob job(String name) {
        String module = modules.get(name);
        if (module == null) {
            throw new KfpException(
                    "unknown job '"
                            + name
                            + "': the jobs are "
                            + String.join(", ", names())
                            + " (kfp jobs lists them; a job is a module of pom.xml with "
                            + JobProvider.SERVICE_FILE
                            + " in its resources).");
        }
        return loaded.computeIfAbsent(name, n -> load(n, module));
    }

    private DeployedJob load(String name, String module) {
        Path jar = jar(module);
        if (!Files.isRegularFile(jar)) {
            throw new KfpException(
                    "the "
                            + name
                            + " job is not built ("
                            + jar
                            + " is missing): run deploy/bin/kfp build.");
        }
        try {
            return new DeployedJob(
                    name, module, jar, JobModules.load(jar, JobCatalog.class.getClassLoader()));
        } catch (JobModules.NotLoadable e) {
            throw new KfpException(e.getMessage(), KfpException.USER_ERROR, e);
        }
    }

    /**
     * Refuses {@code job} under {@code config} when it would share a consumer group, a
     * transactional-id prefix or an output topic with another job as its config file has it.
     */
    public void refuseConflicts(
            DeployedJob job, Configuration config, Map<String, String> environment) {
        List<JobOwnership.Declared> others = new ArrayList<>();
        for (DeployedJob other : built()) {
            Path file = other.defaultConfig(settings);
            if (!other.name().equals(job.name()) && Files.isRegularFile(file)) {
                others.add(
                        new JobOwnership.Declared(
                                other.name(), other.endpoints(file, environment)));
            }
        }
        List<String> conflicts =
                JobOwnership.conflicts(
                        new JobOwnership.Declared(job.name(), job.spec().endpoints(config)),
                        others);
        if (!conflicts.isEmpty()) {
            throw new KfpException(
                    job.name()
                            + " was not submitted, it would clash with another job as"
                            + " deploy/conf/jobs/ configures it: "
                            + String.join(" ", conflicts));
        }
    }
}
