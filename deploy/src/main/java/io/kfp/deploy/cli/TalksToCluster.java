package io.kfp.deploy.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a command that reaches the cluster's processes (brokers, JobManagers, TaskManagers) over
 * the network. In the lab those addresses exist only inside its namespaces, so kfp runs such a
 * command on the topology's client host. On a command class it holds for all its subcommands.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@interface TalksToCluster {
    /** Only when this option is given (e.g. {@code --grant}); always when empty. */
    String onlyWith() default "";
}
