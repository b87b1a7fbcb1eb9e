package io.kfp.deploy.cli;

import io.kfp.common.config.ConfigValidator;
import io.kfp.common.entry.JobEndpoints;
import io.kfp.deploy.KfpException;
import io.kfp.deploy.job.DeployedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(
        name = "jobs",
        mixinStandardHelpOptions = true,
        description = {
            "Every job of the repository, as its module declares it and deploy/conf/jobs/JOB.yaml configures it:",
            "owner, what it reads and writes, its guarantee, consumer group and transactional-id prefix."
        })
final class JobsCommand extends KfpCommand implements Callable<Integer> {

    static final List<String> HEADER =
            List.of(
                    "JOB",
                    "OWNER",
                    "READS",
                    "WRITES",
                    "GUARANTEE",
                    "CONSUMER GROUP",
                    "TRANSACTIONAL IDS");

    @Override
    public Integer call() {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        List<String> notes = new ArrayList<>();
        for (String name : ctx().jobs().names()) {
            try {
                DeployedJob job = ctx().job(name);
                Path file = job.defaultConfig(ctx().settings());
                if (!Files.isRegularFile(file)) {
                    rows.add(List.of(name, job.spec().owner(), "?", "?", "?", "?", "?"));
                    notes.add(name + ": no " + file + " to configure it");
                    continue;
                }
                rows.add(row(job, job.endpoints(file, ctx().environment())));
            } catch (KfpException e) {
                rows.add(List.of(name, "?", "?", "?", "?", "?", "?"));
                notes.add(e.getMessage());
            }
        }
        print(rows);
        notes.forEach(ctx().out()::println);
        ctx().out().flush();
        return 0;
    }

    static List<String> row(DeployedJob job, JobEndpoints endpoints) {
        List<String> writes = new ArrayList<>(endpoints.outputTopics());
        if (endpoints.prints()) {
            writes.add("stdout");
        }
        return List.of(
                job.name(),
                job.spec().owner(),
                String.join(",", endpoints.inputs()),
                String.join(",", writes),
                endpoints.guarantee() == null ? "-" : ConfigValidator.text(endpoints.guarantee()),
                endpoints.consumerGroup() == null ? "-" : endpoints.consumerGroup(),
                endpoints.transactionalIdPrefix() == null
                        ? "-"
                        : endpoints.transactionalIdPrefix() + "-*");
    }

    private void print(List<List<String>> rows) {
        int[] widths = new int[HEADER.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(
                        i == row.size() - 1
                                ? row.get(i)
                                : String.format("%-" + (widths[i] + 2) + "s", row.get(i)));
            }
            ctx().out().println(line.toString().stripTrailing());
        }
    }
}
