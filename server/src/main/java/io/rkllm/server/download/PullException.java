package io.rkllm.server.download;

/**
 * Why a pull or a delete failed, in words for the user, with the kind of failure: the command prints the message,
 * the HTTP routes choose their status by the kind.
 */
public final class PullException extends Exception {

    /** What went wrong, as the HTTP routes answer it. */
    public enum Kind {
        /** The name is not a model name (syntax, {@code ..}, an absolute path): 400. */
        INVALID(400),
        /** Several files fit and none is preferred: the user names one (400). */
        AMBIGUOUS(400),
        /** No such repository, file or quantisation: 404. */
        NOT_FOUND(404),
        /** A gated or private repository without a token that may read it: 401. */
        UNAUTHORIZED(401),
        /** Another pull is writing the same file, or the folder holds another model: 409. */
        CONFLICT(409),
        /** Not enough disk space: 507. */
        INSUFFICIENT_STORAGE(507),
        /** The Hub answered something else than it should (HTML, an empty body, cut transfers, wrong bytes): 502. */
        BAD_GATEWAY(502),
        /** The caller stopped the pull (its client went away); the partial download is kept for a resume. */
        CANCELLED(499);

        private final int status;

        Kind(int status) {
            this.status = status;
        }

        /** The HTTP status that answers it. */
        public int status() {
            return status;
        }
    }

    private final Kind kind;
    private final boolean resumable;

    public PullException(Kind kind, String message) {
        this(kind, message, null);
    }

    public PullException(Kind kind, String message, Throwable cause) {
        this(kind, message, cause, kind == Kind.CANCELLED);
    }

    private PullException(Kind kind, String message, Throwable cause, boolean resumable) {
        super(message, cause);
        this.kind = kind;
        this.resumable = resumable;
    }

    /** A transfer cut too often, or whose Hub stayed out of reach: the partial download is kept for the next pull. */
    static PullException resumable(Kind kind, String message) {
        return new PullException(kind, message, null, true);
    }

    /** A pull given up by its user (its model deleted while it ran): stopped, and nothing of it kept. */
    public static PullException abandoned(String message) {
        return new PullException(Kind.CANCELLED, message, null, false);
    }

    public Kind kind() {
        return kind;
    }

    /**
     * Whether what was downloaded is kept for the next pull to resume (a cut transfer, a Hub out of reach, a cancelled
     * pull).
     */
    public boolean resumable() {
        return resumable;
    }
}
