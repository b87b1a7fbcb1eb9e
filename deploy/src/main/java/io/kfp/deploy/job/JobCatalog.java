package io.kfp.deploy.job;

import io.kfp.common.entry.JobProvider;
import io.kfp.common.entry.JobSpec;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.KfpSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Every job kfp deploys, found without a list of names: a job module is a module of the parent pom
 * whose sources name a {@link JobProvider} in {@code src/main/resources/}{@value
 * JobProvider#SERVICE_FILE}. Its kfp name is the module's directory without {@code -job}; its spec
 * - owner, options, what it reads and writes - comes from its built jar, loaded the way the cluster
 * loads it. The pom says which jobs exist even before a build, so a job that is not built yet is
 * reported as such rather than missing.
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
        return new JobCatalog(settings, jobModules(settings.repo()));
    }

    /** The kfp names of every job module, in the parent pom's order. */
    public List<String> names() {
        return List.copyOf(modules.keySet());
    }

    /** Every job, each loaded from its built jar. */
    public List<DeployedJob> all() {
        return names().stream().map(this::job).toList();
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
        Path jar =
                settings.repo()
                        .resolve(module)
                        .resolve("target")
                        .resolve(module + "-" + settings.version() + "-job.jar");
        if (!Files.isRegularFile(jar)) {
            throw new KfpException(
                    "the "
                            + name
                            + " job is not built ("
                            + jar
                            + " is missing): run deploy/bin/kfp build.");
        }
        return new DeployedJob(name, module, jar, spec(jar));
    }

    /**
     * The spec of the job in {@code jar}: the provider its service file names, loaded with kfp's
     * classes as parent - the jar's copy of our common classes must not stand beside kfp's.
     */
    static JobSpec spec(Path jar) {
        String provider = providerClass(jar);
        try {
            // Never closed: the spec's functions (e.g. its extra output topics) load classes from
            // the jar whenever kfp calls them.
            URLClassLoader loader =
                    new URLClassLoader(
                            new URL[] {jar.toUri().toURL()}, JobCatalog.class.getClassLoader());
            return Class.forName(provider, true, loader)
                    .asSubclass(JobProvider.class)
                    .getConstructor()
                    .newInstance()
                    .spec();
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new KfpException(
                    "cannot load the job spec of "
                            + jar
                            + ": "
                            + provider
                            + " (named in "
                            + JobProvider.SERVICE_FILE
                            + ") must be a public class implementing "
                            + JobProvider.class.getName()
                            + " with a public no-argument constructor; "
                            + e,
                    KfpException.USER_ERROR,
                    e);
        } catch (IllegalArgumentException e) {
            // A spec that does not construct, e.g. without an owner: its own message says why.
            throw new KfpException(e.getMessage(), KfpException.USER_ERROR, e);
        }
    }

    private static String providerClass(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            ZipEntry entry = file.getEntry(JobProvider.SERVICE_FILE);
            if (entry == null) {
                throw new KfpException(
                        jar + " has no " + JobProvider.SERVICE_FILE + ": rebuild it (kfp build).");
            }
            try (BufferedReader reader =
                    new BufferedReader(
                            new InputStreamReader(
                                    file.getInputStream(entry), StandardCharsets.UTF_8))) {
                List<String> classes = new ArrayList<>();
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    String name = line.replaceFirst("#.*", "").trim();
                    if (!name.isEmpty()) {
                        classes.add(name);
                    }
                }
                if (classes.size() != 1) {
                    throw new KfpException(
                            jar
                                    + "'s "
                                    + JobProvider.SERVICE_FILE
                                    + " names "
                                    + classes.size()
                                    + " providers ("
                                    + String.join(", ", classes)
                                    + "): a job jar holds exactly one job.");
                }
                return classes.get(0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The kfp names of {@code repo}'s job modules, from its pom alone (no build needed). */
    public static List<String> jobNames(Path repo) {
        return List.copyOf(jobModules(repo).keySet());
    }

    /** kfp name -> module directory, for each module of {@code repo}'s pom that is a job. */
    static Map<String, String> jobModules(Path repo) {
        Map<String, String> jobs = new LinkedHashMap<>();
        for (String module : modules(repo.resolve("pom.xml"))) {
            if (Files.isRegularFile(
                    repo.resolve(module)
                            .resolve("src/main/resources")
                            .resolve(JobProvider.SERVICE_FILE))) {
                jobs.put(
                        module.endsWith("-job") ? module.substring(0, module.length() - 4) : module,
                        module);
            }
        }
        return jobs;
    }

    private static List<String> modules(Path pom) {
        if (!Files.isRegularFile(pom)) {
            throw new KfpException(
                    "no "
                            + pom
                            + ": kfp finds the jobs in the modules of the repository it runs from"
                            + " (deploy/bin/kfp in a clone of it).");
        }
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element project = factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
            List<String> modules = new ArrayList<>();
            NodeList children = project.getChildNodes();
            for (int i = 0; i < children.getLength(); i++) {
                Node node = children.item(i);
                if (node instanceof Element e && e.getTagName().equals("modules")) {
                    NodeList entries = e.getElementsByTagName("module");
                    for (int j = 0; j < entries.getLength(); j++) {
                        modules.add(entries.item(j).getTextContent().trim());
                    }
                }
            }
            return modules;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new KfpException(
                    "cannot read the modules of " + pom + ": " + e.getMessage(),
                    KfpException.USER_ERROR,
                    e);
        }
    }
}
