package io.kfp.deploy.cli;

import io.kfp.deploy.KfpContext;
import picocli.CommandLine.ParentCommand;

/** A kfp command: what it needs comes from the context, what it prints goes to its out. */
abstract class KfpCommand {

    @ParentCommand Kfp kfp;

    KfpContext ctx() {
        return kfp.context();
    }
}
