package io.kfp.deploy;

/**
 * Something kfp cannot do, said in one sentence that names what is wrong and what to do: printed as
 * {@code kfp: MESSAGE} on stderr, and the process exits with {@link #exitCode()}.
 */
final class KfpException extends RuntimeException {

    /** A wrong command, setting or state the user can fix; nothing was changed. */
    static final int USER_ERROR = 2;

    /** An operation on a running cluster or job failed. */
    static final int FAILED = 1;

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    KfpException(String message) {
        this(message, USER_ERROR);
    }

    KfpException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    KfpException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
