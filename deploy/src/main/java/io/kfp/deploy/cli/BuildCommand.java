package io.kfp.deploy.cli;

import io.kfp.deploy.KfpException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(
        name = "build",
        mixinStandardHelpOptions = true,
        description =
                "Build the job jars, the Flink cluster and the broker (Maven; deploy/bin/kfp runs it before this CLI exists).")
final class BuildCommand extends KfpCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new KfpException(
                "'kfp build' is run by deploy/bin/kfp itself (mvn package): call deploy/bin/kfp build.");
    }
}
