package io.rkllm.server.http.llamacpp;

import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.OpenAiErrorShape;
import io.rkllm.server.http.Route;
import io.rkllm.server.pipeline.ModelTokens;
import java.util.List;

/**
 * llama-server's own routes, which its editors' plugins and older clients speak: {@code /completion} (a raw prompt),
 * {@code /infill} (fill in the middle), {@code /props} (the model's context and defaults), {@code /tokenize} and
 * {@code /detokenize} (the model's own tokenizer). Its errors are OpenAI's shape, as llama-server's are.
 */
public final class LlamaCppFamily implements ApiFamily {
    private final List<Route> routes;
    private final ErrorShape errors;

    public LlamaCppFamily(HttpServices s) {
        errors = new OpenAiErrorShape(s.mapper());
        var handler = new NativeCompletionHandler(s.driver(), new NativeCompletionParser(s.fields()), s.mapper(),
                errors, s.models());
        var props = new PropsHandler(s.models(), s.mapper());
        var tokens = new TokenizeHandler(new ModelTokens(s.models(), s.config().queue().waitTimeout()), s.fields(),
                s.mapper());
        routes = List.of(Route.post("/completion", handler::completion), Route.post("/infill", handler::infill),
                Route.get("/props", props::get), Route.get("/v1/props", props::get),
                Route.post("/tokenize", tokens::tokenize), Route.post("/detokenize", tokens::detokenize));
    }

    @Override
    public List<Route> routes() {
        return routes;
    }

    @Override
    public boolean owns(String path) {
        return switch (path) {
            case "/completion", "/infill", "/props", "/v1/props", "/tokenize", "/detokenize" -> true;
            default -> false;
        };
    }

    @Override
    public ErrorShape errors() {
        return errors;
    }
}
