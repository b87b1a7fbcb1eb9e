package io.kfp.deploy;

import io.kfp.deploy.cluster.FlinkCluster;
import io.kfp.deploy.cluster.FlinkRest;
import io.kfp.deploy.job.DeployedJob;
import io.kfp.deploy.job.JobCatalog;
import io.kfp.deploy.job.JobSubmitter;
import io.kfp.deploy.kafka.KafkaBroker;
import io.kfp.deploy.lab.Lab;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/**
 * What every kfp command works with: its environment, where it prints, the settings read from both,
 * and the parts of the deployment (broker, cluster, REST API, lab, job submitter) built from those
 * settings when a command first asks for them.
 */
public final class KfpContext {

    private final Map<String, String> environment;
    private final Path home;
    private final Path callerDir;
    private final PrintStream out;
    private final PrintStream err;
    private KfpSettings settings;
    private Configuration clusterConfig;
    private JobCatalog jobs;

    public KfpContext(
            Map<String, String> environment,
            Path home,
            Path callerDir,
            PrintStream out,
            PrintStream err) {
        this.environment = environment;
        this.home = home;
        this.callerDir = callerDir;
        this.out = out;
        this.err = err;
    }

    public PrintStream out() {
        return out;
    }

    public PrintStream err() {
        return err;
    }

    public Map<String, String> environment() {
        return environment;
    }

    /** Read from the environment once, when first needed: help works with invalid settings. */
    public KfpSettings settings() {
        if (settings == null) {
            settings = KfpSettings.from(environment, home, callerDir);
        }
        return settings;
    }

    public KafkaBroker kafka() {
        return new KafkaBroker(settings(), out, err);
    }

    public FlinkCluster cluster() {
        return new FlinkCluster(settings(), out, err);
    }

    public FlinkRest rest() {
        requireLabNetwork();
        if (clusterConfig == null) {
            // Once per command: kfp status --watch must not rewrite the cluster's files every
            // screen.
            clusterConfig = cluster().writeConf();
        }
        return FlinkRest.connect(clusterConfig);
    }

    /** The jobs of this repository (their modules, built jars and specs), read once. */
    public JobCatalog jobs() {
        if (jobs == null) {
            jobs = JobCatalog.of(settings());
        }
        return jobs;
    }

    /** The job kfp calls {@code name}, from its built jar. */
    public DeployedJob job(String name) {
        return jobs().job(name);
    }

    public JobSubmitter submitter() {
        requireLabNetwork();
        return new JobSubmitter(settings(), jobs(), cluster(), environment, out, err);
    }

    public Lab lab() {
        if (settings().topology() == null) {
            throw new KfpException(
                    "no topology: the lab commands need one, e.g. export KFP_TOPOLOGY=lab"
                            + " (deploy/conf/topology/lab.yaml).");
        }
        return new Lab(settings().topology(), out);
    }

    /**
     * In the lab, the cluster's addresses exist only inside its namespaces: never dial them from
     * outside.
     */
    public void requireLabNetwork() {
        Topology topology = settings().topology();
        if (topology != null && topology.launcher() == Topology.Launcher.NETNS) {
            Lab.requireInside(topology.subnet());
        }
    }

    /** The Flink job name of {@code job}, from its config file (job.name). */
    public String jobName(DeployedJob job) {
        return job.jobName(job.defaultConfig(settings()), environment);
    }
}
