package io.kfp.deploy.job;

import io.kfp.common.config.OptionGroup;
import io.kfp.common.config.OptionsHelp;
import io.kfp.common.console.ConsoleOptions;
import io.kfp.common.entry.JobSpec;
import io.kfp.common.kafka.KafkaSinkOptions;
import io.kfp.common.kafka.SourceOptions;
import io.kfp.common.kafka.TopicNames;
import io.kfp.common.socket.SocketOptions;
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
import org.apache.flink.configuration.ConfigOption;

/**
 * {@code kfp new-job}: a job module made from a template, ready to build, test and submit - its pom
 * (the parent, the shaded job jar, Flink provided), its spec with fixed operator uids and its
 * provider, a README with its generated options table, a unit test, the test kit's module contract
 * and (for a job that writes Kafka exactly-once) its exactly-once contract, its config for kfp, its
 * line in the root pom and in CODEOWNERS. Nothing is written unless all of it can be.
 */
public final class JobScaffold {

    /** What the new job starts as: its files are under {@code scaffold/<name>/}. */
    public enum Template {
        /** Kafka -> Kafka, exactly-once, copying each record byte for byte. */
        RELAY(
                "Kafka -> Kafka, exactly-once.",
                List.of(SourceOptions.GROUP, KafkaSinkOptions.GROUP),
                Map.of()),
        /** Kafka -> console, at-least-once: the sink-job's shape. */
        SINK(
                "Kafka -> console, at-least-once.",
                List.of(SourceOptions.GROUP, ConsoleOptions.GROUP),
                Map.of()),
        /** TCP text lines -> Kafka, at-least-once: the ingest-job's shape. */
        INGEST(
                "TCP text lines -> Kafka, at-least-once.",
                List.of(KafkaSinkOptions.GROUP, SocketOptions.GROUP),
                Map.of(KafkaSinkOptions.DELIVERY_GUARANTEE, "at-least-once"));

        final String description;
        final List<OptionGroup> groups;
        final Map<ConfigOption<?>, String> defaults;

        Template(
                String description,
                List<OptionGroup> groups,
                Map<ConfigOption<?>, String> defaults) {
            this.description = description;
            this.groups = groups;
            this.defaults = defaults;
        }

        /** Whether the job reads Kafka topics (takes --from). */
        public boolean readsKafka() {
            return groups.contains(SourceOptions.GROUP);
        }

        /** Whether the job writes a Kafka topic (takes --to). */
        public boolean writesKafka() {
            return groups.contains(KafkaSinkOptions.GROUP);
        }
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
        check(name, owner, template, from, to);
        String className = className(name);
        String pkg = "io.kfp." + name.replace("-", "");
        String module = name + "-job";
        Map<String, String> values = new LinkedHashMap<>();
        values.put("@@NAME@@", name);
        values.put("@@CLASS@@", className);
        values.put("@@PACKAGE@@", pkg);
        values.put("@@OWNER@@", owner);
        // A template that reads no topic (or writes none) has no use for --from (or --to).
        values.put("@@FROM@@", template.readsKafka() ? from : "");
        values.put("@@TO@@", template.writesKafka() ? to : "");
        values.put("@@VERSION@@", version);
        values.put("@@DESCRIPTION@@", template.description);
        values.put("@@OPTIONS@@", optionsTable(name, owner, template));

        String t = template.name().toLowerCase() + "/";
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
        if (exists(t + "ContractTest.java.tmpl")) {
            files.put(
                    test + className + "ContractTest.java",
                    fill(t + "ContractTest.java.tmpl", values));
        }
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
    void check(String name, String owner, Template template, String from, String to) {
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
        List<String[]> topics = new ArrayList<>();
        if (template.readsKafka()) {
            topics.add(new String[] {"--from", from});
        }
        if (template.writesKafka()) {
            topics.add(new String[] {"--to", to});
        }
        for (String[] topic : topics) {
            if (!TopicNames.isValid(topic[1])) {
                throw new KfpException(topic[0] + " '" + topic[1] + "': " + TopicNames.RULE + ".");
            }
        }
        if (topics.size() == 2 && from.equals(to)) {
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
    private static String optionsTable(String name, String owner, Template template) {
        JobSpec.Builder builder = JobSpec.builder(name + "-job", "").owner(owner);
        template.groups.forEach(builder::group);
        template.defaults.forEach(builder::defaultValue);
        JobSpec spec = builder.workflow(config -> env -> {});
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

    /** Whether the template has {@code file} of its own. */
    private static boolean exists(String file) {
        return JobScaffold.class.getClassLoader().getResource("scaffold/" + file) != null;
    }

    /**
     * The template's {@code file}, or the one every template shares ({@code scaffold/any/}), with
     * the placeholders filled.
     */
    private static String fill(String file, Map<String, String> values) {
        String resource =
                exists(file) ? "scaffold/" + file : "scaffold/any/" + file.replaceFirst(".*/", "");
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
