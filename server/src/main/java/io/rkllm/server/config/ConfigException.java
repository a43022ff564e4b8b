package io.rkllm.server.config;

/** Invalid configuration: the message names the key and the problem; the process exits with code 2. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
