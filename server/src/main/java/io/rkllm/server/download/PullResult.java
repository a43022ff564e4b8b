package io.rkllm.server.download;

import java.nio.file.Path;

/**
 * A finished pull.
 *
 * @param plan       what it was asked to write
 * @param folder     the model's folder in the models directory
 * @param model      the model file in it
 * @param downloaded bytes read from the Hub (0 when every file was already there with its digest)
 */
public record PullResult(PullPlan plan, Path folder, Path model, long downloaded) {

    /** Nothing was downloaded: the files were there with the Hub's digests. */
    public boolean upToDate() {
        return downloaded == 0;
    }
}
