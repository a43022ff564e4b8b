package io.rkllm.server.http;

import io.javalin.http.Context;
import java.util.Optional;

/** Open WebUI's chat id header, which every chat API takes as the conversation's key for the KV cache. */
public final class ConversationHeader {
    public static final String NAME = "X-OpenWebUI-Chat-Id";

    private ConversationHeader() {
    }

    public static Optional<String> of(Context ctx) {
        return Optional.ofNullable(ctx.header(NAME));
    }
}
