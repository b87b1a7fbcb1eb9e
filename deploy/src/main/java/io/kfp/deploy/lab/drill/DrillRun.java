package io.kfp.deploy.lab.drill;

/**
 * The names of one drill run: topics and transactional ids of this run alone, so that an earlier
 * run's records and transactions never count as this one's.
 *
 * @param id {@code drill-} and the epoch second the run started
 */
record DrillRun(String id) {

    static DrillRun startingNow() {
        return new DrillRun("drill-" + System.currentTimeMillis() / 1000);
    }

    String input() {
        return id + "-in";
    }

    String output() {
        return id + "-out";
    }

    /** This run's transactional ids: kfp.JOB.INSTANCE-subtask-checkpoint. */
    String transactionalIdPrefix() {
        return "kfp." + DrillRelay.JOB_NAME + "." + id + "-";
    }
}
