package io.rkllm.server.http;

import java.util.List;
import java.util.Set;

/**
 * One wire API served on the port (OpenAI's chat and completions, the Responses API, Anthropic's Messages, Ollama's):
 * its routes, which paths it owns, the shape of its errors and the request headers its clients send. Adding or
 * changing an API touches its own folder; {@link HttpServer} only registers what each family declares.
 */
public interface ApiFamily {
    /** The routes, each with its handler. */
    List<Route> routes();

    /** Whether an error on {@code path} (routed or not) is written in this family's shape. */
    boolean owns(String path);

    /** How this API writes an error. */
    ErrorShape errors();

    /** Request headers this API's clients send from a browser, for CORS preflights (lower case). */
    default Set<String> requestHeaders() {
        return Set.of();
    }
}
