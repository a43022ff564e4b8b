package io.rkllm.server.http.anthropic;

import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.Route;
import java.util.List;
import java.util.Set;

/** Anthropic's Messages API: {@code /v1/messages} and {@code /v1/messages/count_tokens}, in Anthropic's error shape. */
public final class AnthropicFamily implements ApiFamily {
    private final List<Route> routes;
    private final ErrorShape errors;

    public AnthropicFamily(HttpServices s) {
        errors = new AnthropicErrorShape(s.mapper());
        var handler = new AnthropicHandler(s.driver(), new AnthropicRequestParser(s.fields(), s.limits()),
                s.pipeline(), s.mapper(), errors);
        routes = List.of(Route.post("/v1/messages", handler::messages),
                Route.post("/v1/messages/count_tokens", handler::countTokens));
    }

    @Override
    public List<Route> routes() {
        return routes;
    }

    @Override
    public boolean owns(String path) {
        return path.equals("/v1/messages") || path.startsWith("/v1/messages/");
    }

    @Override
    public ErrorShape errors() {
        return errors;
    }

    /** What Anthropic's SDKs send (x-stainless-* too, allowed by prefix). */
    @Override
    public Set<String> requestHeaders() {
        return Set.of("x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access");
    }
}
