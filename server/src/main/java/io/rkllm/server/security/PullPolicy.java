package io.rkllm.server.security;

import io.rkllm.server.api.ApiException;
import io.rkllm.server.config.ServerConfig;
import java.util.Map;
import java.util.Optional;

/**
 * Who may pull and delete models over HTTP ({@code security.allow_pull}): writing gigabytes to a board's disk is not
 * for anyone who can reach the port. {@code auto} allows it when the server listens on loopback only (the machine's
 * own users) or has API keys (then every such request carries one); {@code on} always, {@code off} never.
 *
 * @param refusal why it is not allowed here, naming the setting to change; empty when it is
 */
public record PullPolicy(Optional<String> refusal) {
    public static final String SETTING = "security.allow_pull";

    public static PullPolicy of(ServerConfig config, boolean keys) {
        String setting = config.security().allowPull();
        if (setting.equals("on") || setting.equals("true")) {
            return new PullPolicy(Optional.empty());
        }
        if (setting.equals("off") || setting.equals("false")) {
            return new PullPolicy(Optional.of("pulling and deleting models is off on this server (" + SETTING
                    + ": " + setting + ")"));
        }
        String host = config.server().host();
        if (keys || AccessPolicy.isLoopback(host)) {
            return new PullPolicy(Optional.empty());
        }
        return new PullPolicy(Optional.of("pulling and deleting models is not allowed here: this server listens on "
                + host + " without API keys, so anyone who can reach it could fill its disk; set API keys"
                + " (security.api_keys) or " + SETTING + ": on to allow it"));
    }

    /** @throws ApiException 403 with the reason, when not allowed */
    public void check() {
        if (refusal.isPresent()) {
            throw new ApiException(403, "permission_error", "pull_not_allowed", null, refusal.get(), Map.of(), null);
        }
    }

    public boolean allowed() {
        return refusal.isEmpty();
    }
}
