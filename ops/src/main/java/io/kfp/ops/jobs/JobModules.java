package io.kfp.ops.jobs;

import io.kfp.common.entry.JobProvider;
import io.kfp.common.entry.JobSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
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
 * The job modules of a repository, found without a list of names: a job module is a module of the
 * root pom whose sources name a {@link JobProvider} in {@code src/main/resources/}{@value
 * JobProvider#SERVICE_FILE}; its name is the module's directory without {@code -job}. Its spec is
 * loaded from its built classes (a jar or a classes directory) with the caller's classes as parent,
 * so the spec's types are the caller's. What kfp and the test kit share.
 */
public final class JobModules {

    /** A job's classes could not give its spec; the message names the fix. */
    public static final class NotLoadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotLoadable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private JobModules() {}

    /** Job name -> module directory, for each job module of {@code repo}'s pom, in its order. */
    public static Map<String, String> of(Path repo) {
        Map<String, String> jobs = new LinkedHashMap<>();
        for (String module : modules(repo.resolve("pom.xml"))) {
            if (Files.isRegularFile(
                    repo.resolve(module)
                            .resolve("src/main/resources")
                            .resolve(JobProvider.SERVICE_FILE))) {
                jobs.put(
                        module.endsWith("-job")
                                ? module.substring(0, module.length() - "-job".length())
                                : module,
                        module);
            }
        }
        return jobs;
    }

    /**
     * The spec of the job whose classes are {@code classes} (its jar, or its {@code
     * target/classes}), loaded under {@code parent}. The loader stays open: the spec's functions
     * (e.g. its extra output topics) load classes from it whenever they are called.
     *
     * @throws NotLoadable naming what is wrong and what to do
     */
    public static JobSpec load(Path classes, ClassLoader parent) {
        String provider = providerClass(classes);
        try {
            URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, parent);
            return Class.forName(provider, true, loader)
                    .asSubclass(JobProvider.class)
                    .getConstructor()
                    .newInstance()
                    .spec();
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new NotLoadable(
                    "cannot load the job spec of "
                            + classes
                            + ": "
                            + provider
                            + " (named in "
                            + JobProvider.SERVICE_FILE
                            + ") must be a public class implementing "
                            + JobProvider.class.getName()
                            + " with a public no-argument constructor; "
                            + e,
                    e);
        } catch (IllegalArgumentException e) {
            // A spec that does not construct, e.g. without an owner: its own message says why.
            throw new NotLoadable(e.getMessage(), e);
        }
    }

    private static String providerClass(Path classes) {
        try {
            if (Files.isDirectory(classes)) {
                Path file = classes.resolve(JobProvider.SERVICE_FILE);
                if (!Files.isRegularFile(file)) {
                    throw missing(classes);
                }
                try (InputStream in = Files.newInputStream(file)) {
                    return single(classes, in);
                }
            }
            try (JarFile jar = new JarFile(classes.toFile())) {
                ZipEntry entry = jar.getEntry(JobProvider.SERVICE_FILE);
                if (entry == null) {
                    throw missing(classes);
                }
                return single(classes, jar.getInputStream(entry));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static NotLoadable missing(Path classes) {
        return new NotLoadable(
                classes + " has no " + JobProvider.SERVICE_FILE + ": rebuild it (kfp build).",
                null);
    }

    private static String single(Path classes, InputStream in) throws IOException {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            List<String> names = new ArrayList<>();
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                String name = line.replaceFirst("#.*", "").trim();
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
            if (names.size() != 1) {
                throw new NotLoadable(
                        classes
                                + "'s "
                                + JobProvider.SERVICE_FILE
                                + " names "
                                + names.size()
                                + " providers ("
                                + String.join(", ", names)
                                + "): a job module holds exactly one job.",
                        null);
            }
            return names.get(0);
        }
    }

    private static List<String> modules(Path pom) {
        if (!Files.isRegularFile(pom)) {
            throw new IllegalArgumentException(
                    "no "
                            + pom
                            + ": the jobs are the modules of the repository's pom (run from a"
                            + " clone of it).");
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
            throw new IllegalArgumentException(
                    "cannot read the modules of " + pom + ": " + e.getMessage(), e);
        }
    }
}
