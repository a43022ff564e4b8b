package io.rkllm.server.download;

/**
 * A file of a Hub repository as its listing describes it.
 *
 * @param path   its path in the repository ({@code Q4_K_M/model-Q4_K_M-00001-of-00002.gguf})
 * @param size   its size in bytes
 * @param digest the digest the Hub publishes for it, which the downloaded bytes must have
 */
public record HubFile(String path, long size, Digest digest) {

    /** Its name without the folders. */
    public String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
