package io.kfp.deploy.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@TalksToCluster
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        description = "Single-node KRaft broker on 127.0.0.1 (KFP_KAFKA_PORT, 9092 by default).")
final class KafkaCommand extends KfpCommand {
    @Command(
            name = "start",
            description = "Format its storage the first time, start it, wait until it answers.")
    void start(
            @Option(
                            names = "--secure",
                            description = {
                                "the first time: a broker that authenticates (SASL_SSL, SCRAM-SHA-512 users",
                                "admin, ingest, relay, sink) and authorizes (ACLs; kfp acls JOB --grant); kfp submit then gives each job its user.",
                                "Certificates and passwords are made in KFP_RUN_DIR/kafka-security. A broker formatted so stays so."
                            })
                    boolean secure) {
        ctx().kafka().start(secure);
    }

    @Command(name = "stop", description = "Stop it by its PID (TERM, then KILL after 30 s).")
    void stop() {
        ctx().kafka().stop();
    }

    @Command(name = "status", description = "Whether it runs, and its bootstrap servers.")
    void status() {
        ctx().kafka().status();
    }
}
