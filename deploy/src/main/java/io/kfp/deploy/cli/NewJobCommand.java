package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import io.kfp.deploy.job.JobScaffold;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "new-job",
        mixinStandardHelpOptions = true,
        description = {
            "Make the job module NAME-job, ready to build, test and submit: its pom, its spec and provider, a README,",
            "a unit test and the test kit's contracts, deploy/conf/jobs/NAME.yaml, its line in pom.xml and CODEOWNERS."
        })
final class NewJobCommand extends KfpCommand implements Callable<Integer> {

    @Parameters(
            paramLabel = "NAME",
            description = "the job's name, e.g. dedup (its module: dedup-job)")
    String name;

    @Option(
            names = "--owner",
            required = true,
            paramLabel = "TEAM",
            description = "its team as CODEOWNERS names it: @my-org/my-team or @my-user")
    String owner;

    @Option(
            names = "--like",
            paramLabel = "TEMPLATE",
            defaultValue = "relay",
            description =
                    "what it starts as: relay (Kafka -> Kafka exactly-once, a byte-for-byte copy),"
                            + " sink (Kafka -> console) or ingest (TCP text lines -> Kafka)")
    String like;

    @Option(
            names = "--from",
            paramLabel = "TOPIC",
            description = "its input topic, for relay and sink (default: NAME-in)")
    String from;

    @Option(
            names = "--to",
            paramLabel = "TOPIC",
            description = "its output topic, for relay and ingest (default: NAME-out)")
    String to;

    @Override
    public Integer call() {
        JobScaffold.Template template;
        try {
            template = JobScaffold.Template.valueOf(like.toUpperCase());
        } catch (IllegalArgumentException e) {
            throw new KfpException(
                    "--like '"
                            + like
                            + "': the templates are relay (Kafka -> Kafka, exactly-once), sink"
                            + " (Kafka -> console) and ingest (TCP text lines -> Kafka).");
        }
        if (from != null && !template.readsKafka()) {
            throw new KfpException(
                    "--from: a job --like "
                            + like
                            + " reads sockets, not a topic: set socket.endpoints in"
                            + " deploy/conf/jobs/"
                            + name
                            + ".yaml once it is made.");
        }
        if (to != null && !template.writesKafka()) {
            throw new KfpException(
                    "--to: a job --like " + like + " prints its records; it writes no topic.");
        }
        List<String> written =
                new JobScaffold(ctx().settings().repo(), ctx().settings().version())
                        .create(
                                name,
                                owner,
                                template,
                                from == null ? name + "-in" : from,
                                to == null ? name + "-out" : to);
        ctx().out().println("made the " + name + " job, owned by " + owner + ":");
        written.forEach(f -> ctx().out().println("  " + f));
        ctx().out().println("next:");
        ctx().out().println("  ./mvnw -pl " + name + "-job -am verify     # its tests");
        ctx().out()
                .println(
                        "  deploy/bin/kfp build && deploy/bin/kfp topics create && deploy/bin/kfp submit "
                                + name);
        ctx().out().flush();
        return 0;
    }
}
