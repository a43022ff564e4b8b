package io.rkllm.server.download;

/** Which Hub a pull asks, decided when the pull starts ({@code HF_ENDPOINT} and {@code HF_TOKEN}). */
@FunctionalInterface
public interface HubSource {
    /** @throws PullException {@link PullException.Kind#INVALID} for an endpoint that is no address */
    Hub hub() throws PullException;
}
