package io.kfp.deploy.cli;

import io.kfp.deploy.KfpContext;
import io.kfp.deploy.job.DeployedJob;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** JOB, --config FILE and the job options after JOB: what submit, resume and acls take. */
final class JobArguments {
    @Parameters(index = "0", paramLabel = "JOB", description = "a job: kfp jobs lists them")
    String job;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "the job's config file instead of deploy/conf/jobs/JOB.yaml")
    String config;

    @Parameters(
            index = "1..*",
            paramLabel = "--key value",
            description =
                    "job options overriding the file (the job's --help lists them; e.g. --job.parallelism 3 to rescale)")
    List<String> options = new ArrayList<>();

    DeployedJob deployed(KfpContext ctx) {
        return ctx.job(job);
    }

    /** Whether the options say where the job starts from ({@code --checkpoint.restore-from}). */
    boolean restores() {
        return options.stream()
                .anyMatch(
                        o ->
                                o.equals("--checkpoint.restore-from")
                                        || o.startsWith("--checkpoint.restore-from="));
    }

    /** The job's command line: {@code --config FILE} if given, then the options. */
    List<String> args() {
        List<String> args = new ArrayList<>();
        if (config != null) {
            args.addAll(List.of("--config", config));
        }
        args.addAll(options);
        return args;
    }
}
