package io.rkllm.server.download;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a pull reports as it goes, for a progress bar, progress lines or Ollama's NDJSON stream. Called on the
 * pulling thread; a report that throws (a client gone) ends the pull as {@link PullException.Kind#CANCELLED}, with
 * what was downloaded kept for a resume.
 */
public interface PullProgress {
    PullProgress NONE = new PullProgress() {
    };

    /** The repository (or the registry's manifest) is being asked of {@code source}, the Hub's or registry's URL. */
    default void listing(String repo, String source) throws PullException {
    }

    /** The files the pull will write are chosen. */
    default void planned(PullPlan plan) throws PullException {
    }

    /**
     * {@code completed} of the file's bytes are on disk (a file already there: all of them, at once); called once per
     * buffer read.
     */
    default void transfer(HubFile file, long completed) throws PullException {
    }

    /**
     * The transfer of a file stopped at {@code completed} bytes (a cut, a Hub out of reach or busy) and is asked
     * again, from there, after {@code wait}: so that a waiting pull does not look stuck.
     */
    default void stopped(HubFile file, long completed, String why, Duration wait) throws PullException {
    }

    /** The bytes of a file are being checked against its digest (one already there, or a partial download). */
    default void verifying(HubFile file) throws PullException {
    }

    /** The verified files are being moved into the model's folder. */
    default void placing(Path folder) throws PullException {
    }
}
