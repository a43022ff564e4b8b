package io.rkllm.server.http.ollama;

import io.rkllm.server.download.HubFile;
import io.rkllm.server.download.PullException;
import io.rkllm.server.download.PullPlan;
import io.rkllm.server.download.PullProgress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A pull that a delete of its name stops (Open WebUI's cancel: the stream dropped, then {@code DELETE /api/delete}
 * of the name being pulled): its transfer ends at its next buffer, and its partial download is removed.
 */
final class CancellablePull {
    private volatile boolean cancelled;
    /** The thread that runs the pull (a request's virtual thread: an interrupt ends a read it waits in). */
    private final Thread pulling = Thread.currentThread();
    /** The files whose transfer it reported: their partial downloads, should its name be deleted after it ends. */
    private final Set<HubFile> files = ConcurrentHashMap.newKeySet();
    private final CountDownLatch ended = new CountDownLatch(1);

    PullProgress watching(PullProgress progress) {
        return new PullProgress() {
            @Override
            public void listing(String repo, String source) throws PullException {
                check();
                progress.listing(repo, source);
            }

            @Override
            public void planned(PullPlan plan) throws PullException {
                check();
                progress.planned(plan);
            }

            @Override
            public void transfer(HubFile file, long completed) throws PullException {
                check();
                files.add(file);
                progress.transfer(file, completed);
            }

            @Override
            public void stopped(HubFile file, long completed, String why, Duration wait) throws PullException {
                check();
                progress.stopped(file, completed, why, wait);
            }

            @Override
            public void verifying(HubFile file) throws PullException {
                check();
                progress.verifying(file);
            }

            @Override
            public void placing(Path folder) throws PullException {
                check();
                progress.placing(folder);
            }
        };
    }

    private void check() throws PullException {
        if (cancelled) {
            // not resumable: the pull's partial download goes, as the user who cancelled it expects
            throw PullException.abandoned("the pull was cancelled (its model deleted)");
        }
    }

    /** Stops the pull: at its next buffer, or at once where it waits on the network (its thread interrupted). */
    void cancel() {
        cancelled = true;
        Thread thread = pulling;
        if (thread != null) {
            thread.interrupt();
        }
    }

    /** The files whose transfer it reported so far. */
    Set<HubFile> files() {
        return files;
    }

    void ended() {
        ended.countDown();
    }

    /** Waits for the pull to have stopped, at most {@code wait}. */
    boolean awaitEnd(Duration wait) {
        try {
            return ended.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
