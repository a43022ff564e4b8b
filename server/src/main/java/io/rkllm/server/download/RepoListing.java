package io.rkllm.server.download;

import java.util.List;

/**
 * A repository as the Hub lists it.
 *
 * @param repo     {@code OWNER/REPO}
 * @param revision the commit the listing describes: every file is fetched at it, so a push during a pull cannot
 *                 mix two versions
 * @param gated    whether its files need a token of an account that accepted its terms
 * @param files    every file, with size and digest
 */
public record RepoListing(String repo, String revision, boolean gated, List<HubFile> files) {
    public RepoListing {
        files = List.copyOf(files);
    }
}
