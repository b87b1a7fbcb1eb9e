package io.kfp.deploy;

/**
 * Something kfp cannot do, said in one sentence that names what is wrong and what to do: printed as
 * {@code kfp: MESSAGE} on stderr, and the process exits with {@link #exitCode()}.
 */
public final class KfpException extends RuntimeException {

    /** A wrong command, setting or state the user can fix; nothing was changed. */
    public static final int USER_ERROR = 2;

    /** An operation on a running cluster or job failed. */
    public static final int FAILED = 1;

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public KfpException(String message) {
        this(message, USER_ERROR);
    }

    public KfpException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    public KfpException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
