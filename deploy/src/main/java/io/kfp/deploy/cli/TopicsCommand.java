package io.kfp.deploy.cli;

import io.kfp.deploy.KfpSettings;
import io.kfp.deploy.Topology;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.kafka.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import picocli.CommandLine.Command;

@TalksToCluster
@Command(
        name = "topics",
        mixinStandardHelpOptions = true,
        description = "Kafka topics of the jobs.")
final class TopicsCommand extends KfpCommand {
    @Command(
            name = "create",
            description = "Create the topics named in deploy/conf/jobs/*.yaml (4 partitions each).")
    void create() {
        KfpSettings settings = ctx().settings();
        settings.requireDist();
        TreeSet<String> topics = new TreeSet<>();
        for (DeployedJob job : ctx().jobs().built()) {
            Path config = job.defaultConfig(settings);
            if (Files.isRegularFile(config)) {
                topics.addAll(job.topics(config, ctx().environment()));
            }
        }
        ctx().requireLabNetwork();
        int brokers =
                settings.topology() == null
                        ? 1
                        : settings.topology().with(Topology.Role.KAFKA).size();
        new Topics(settings, ctx().out())
                .create(topics, Topics.PARTITIONS, (short) Math.min(3, brokers));
    }
}
