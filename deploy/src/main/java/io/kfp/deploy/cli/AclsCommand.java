package io.kfp.deploy.cli;

import io.kfp.deploy.job.DeployedJob;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@TalksToCluster(onlyWith = "--grant")
@Command(
        name = "acls",
        mixinStandardHelpOptions = true,
        description = {
            "Print the kafka-acls.sh lines that grant a job's Kafka user exactly what it needs.",
            "Computed by the job itself from deploy/conf/jobs/JOB.yaml (or --config FILE) and any --key value after JOB,",
            "as kfp submit would run it: its topics, consumer group and transactional id prefix. Needs no cluster."
        })
final class AclsCommand extends KfpCommand implements Callable<Integer> {
    @Mixin JobArguments job;

    @Option(
            names = "--principal",
            paramLabel = "TYPE:NAME",
            description = "the job's Kafka user (default User:JOB)")
    String principal;

    @Option(
            names = "--grant",
            description =
                    "create them on kfp's secure broker (kfp kafka start --secure), as its admin user, with Kafka's kafka-acls.sh")
    boolean grant;

    @Override
    public Integer call() {
        DeployedJob deployed = job.deployed(ctx());
        String user = principal != null ? principal : "User:" + deployed.name();
        if (grant) {
            ctx().requireLabNetwork();
            ctx().submitter().grantAcls(deployed, job.args(), user);
        } else {
            ctx().submitter().printAcls(deployed, job.args(), user);
        }
        return 0;
    }
}
