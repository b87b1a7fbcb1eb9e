package io.kfp.deploy.job;

import io.kfp.common.config.OptionsHelp;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.kafka.TopicNames;
import io.kfp.deploy.KfpException;
import io.kfp.ops.jobs.JobModules;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code kfp new-job}: a job module made from a template, ready to build, test and submit - its pom
 * (the parent, the shaded job jar, Flink provided), its spec with fixed operator uids and its
 * provider, a README with its generated options table, a unit test and the test kit's two
 * contracts, its config for kfp, its line in the root pom and in CODEOWNERS. Nothing is written
 * unless all of it can be.
 */
public final class JobScaffold {

    /** What the new job starts as. */
    public enum Template {
        /** Kafka -> Kafka, exactly-once, copying each record byte for byte. */
        RELAY
    }

    /**
     * Lower-case words joined by single dashes: safe as a module, a package part and a job name.
     */
    static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");

    /** A CODEOWNERS owner: a GitHub user or team. */
    static final Pattern OWNER = Pattern.compile("@[A-Za-z0-9-]+(/[A-Za-z0-9._-]+)?");

    /** Names that would be taken for something else: kfp logs' other targets, the build's own. */
    static final Set<String> RESERVED =
            Set.of("jobmanager", "kafka", "taskmanager", "common", "ops", "testkit", "deploy");

    private final Path repo;
    private final String version;

    public JobScaffold(Path repo, String version) {
        this.repo = repo;
        this.version = version;
    }

    /**
     * Makes the job module {@code name}-job; returns what it wrote or changed, relative to the
     * repository.
     */
    public List<String> create(
            String name, String owner, Template template, String from, String to) {
        check(name, owner, from, to);
        String className = className(name);
        String pkg = "io.kfp." + name.replace("-", "");
        String module = name + "-job";
        Map<String, String> values = new LinkedHashMap<>();
        values.put("@@NAME@@", name);
        values.put("@@CLASS@@", className);
        values.put("@@PACKAGE@@", pkg);
        values.put("@@OWNER@@", owner);
        values.put("@@FROM@@", from);
        values.put("@@TO@@", to);
        values.put("@@VERSION@@", version);
        values.put("@@OPTIONS@@", optionsTable(name, owner));

        String t = "scaffold/" + template.name().toLowerCase() + "/";
        String main = module + "/src/main/java/" + pkg.replace('.', '/') + "/";
        String test = module + "/src/test/java/" + pkg.replace('.', '/') + "/";
        Map<String, String> files = new LinkedHashMap<>();
        files.put(module + "/pom.xml", fill(t + "pom.xml.tmpl", values));
        files.put(module + "/README.md", fill(t + "README.md.tmpl", values));
        files.put(main + className + "Job.java", fill(t + "Job.java.tmpl", values));
        files.put(
                module + "/src/main/resources/META-INF/services/io.kfp.common.entry.JobProvider",
                pkg + "." + className + "Job$Provider\n");
        files.put(test + className + "JobTest.java", fill(t + "JobTest.java.tmpl", values));
        files.put(
                test + className + "ContractTest.java", fill(t + "ContractTest.java.tmpl", values));
        files.put(test + className + "ModuleTest.java", fill(t + "ModuleTest.java.tmpl", values));
        files.put(
                module + "/src/test/resources/log4j2-test.properties",
                fill(t + "log4j2-test.properties.tmpl", values));
        files.put("deploy/conf/jobs/" + name + ".yaml", fill(t + "conf.yaml.tmpl", values));

        String pom =
                withModule(
                        read(repo.resolve("pom.xml")),
                        module,
                        List.copyOf(JobModules.of(repo).values()));
        Path codeOwners = repo.resolve("CODEOWNERS");
        String owners =
                (Files.exists(codeOwners)
                                ? read(codeOwners)
                                : "# Who reviews what: each job module and its config for kfp belong"
                                        + " to its team.\n")
                        + "/"
                        + module
                        + "/ "
                        + owner
                        + "\n/deploy/conf/jobs/"
                        + name
                        + ".yaml "
                        + owner
                        + "\n";
        try {
            for (Map.Entry<String, String> file : files.entrySet()) {
                Path path = repo.resolve(file.getKey());
                Files.createDirectories(path.getParent());
                Files.writeString(path, file.getValue(), StandardCharsets.UTF_8);
            }
            Files.writeString(repo.resolve("pom.xml"), pom, StandardCharsets.UTF_8);
            Files.writeString(codeOwners, owners, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> written = new ArrayList<>(files.keySet());
        written.add("pom.xml (<module>" + module + "</module>)");
        written.add("CODEOWNERS (/" + module + "/ " + owner + ")");
        return written;
    }

    /** Refuses, before anything is written, a name, owner or topic that cannot be. */
    void check(String name, String owner, String from, String to) {
        if (!NAME.matcher(name).matches() || name.length() > 40 || name.endsWith("-job")) {
            throw new KfpException(
                    "job name '"
                            + name
                            + "': use lower-case letters and digits, words joined by '-', at most"
                            + " 40 characters, without -job (kfp adds it): e.g. dedup or"
                            + " fraud-score.");
        }
        if (RESERVED.contains(name)) {
            throw new KfpException(
                    "job name '" + name + "' is taken by kfp or the build: choose another.");
        }
        if (JobModules.of(repo).containsKey(name)) {
            throw new KfpException(
                    "a job named " + name + " exists (kfp jobs lists them): choose another name.");
        }
        for (String taken : List.of(name + "-job", "deploy/conf/jobs/" + name + ".yaml", name)) {
            if (Files.exists(repo.resolve(taken))) {
                throw new KfpException(repo.resolve(taken) + " exists: choose another name.");
            }
        }
        if (owner == null || !OWNER.matcher(owner).matches()) {
            throw new KfpException(
                    "--owner '"
                            + owner
                            + "': kfp writes it into CODEOWNERS, so give a GitHub team or user:"
                            + " --owner @my-org/my-team or --owner @my-user.");
        }
        for (String[] topic : new String[][] {{"--from", from}, {"--to", to}}) {
            if (!TopicNames.isValid(topic[1])) {
                throw new KfpException(topic[0] + " '" + topic[1] + "': " + TopicNames.RULE + ".");
            }
        }
        if (from.equals(to)) {
            throw new KfpException(
                    "--from and --to are both " + from + ": a job copies one into another.");
        }
    }

    /** {@code fraud-score} -> {@code FraudScore}. */
    static String className(String name) {
        StringBuilder out = new StringBuilder();
        for (String word : name.split("-")) {
            out.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        return out.toString();
    }

    /** The options table the new module's README test will expect, for its starting spec. */
    private static String optionsTable(String name, String owner) {
        JobSpec spec =
                JobSpec.builder(name + "-job", "")
                        .owner(owner)
                        .group(SourceOptions.GROUP)
                        .group(KafkaSinkOptions.GROUP)
                        .workflow(config -> env -> {});
        return OptionsHelp.markdown(spec.groups(), spec.defaults());
    }

    /** The root pom with {@code module} listed after the last of {@code jobs}, its job modules. */
    String withModule(String pom, String module, List<String> jobs) {
        String line = "<module>" + module + "</module>";
        int at;
        if (jobs.isEmpty()) {
            at = pom.indexOf("  </modules>");
        } else {
            String last = "<module>" + jobs.get(jobs.size() - 1) + "</module>";
            at = pom.indexOf('\n', pom.indexOf(last)) + 1;
        }
        if (at <= 0) {
            throw new KfpException(
                    repo.resolve("pom.xml") + " has no <modules> to add " + module + " to.");
        }
        return pom.substring(0, at) + "    " + line + "\n" + pom.substring(at);
    }

    private static String fill(String resource, Map<String, String> values) {
        String text;
        try (InputStream in = JobScaffold.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("kfp's jar has no " + resource);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Map.Entry<String, String> value : values.entrySet()) {
            text = text.replace(value.getKey(), value.getValue());
        }
        return text;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
