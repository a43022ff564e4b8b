package io.rkllm.server.http.llamacpp;

import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.OpenAiErrorShape;
import io.rkllm.server.http.Route;
import java.util.List;

/**
 * llama-server's own completion routes, which its editors' plugins and older clients speak: {@code /completion} (a
 * raw prompt) and {@code /infill} (fill in the middle). Its errors are OpenAI's shape, as llama-server's are.
 */
public final class LlamaCppFamily implements ApiFamily {
    private final List<Route> routes;
    private final ErrorShape errors;

    public LlamaCppFamily(HttpServices s) {
        errors = new OpenAiErrorShape(s.mapper());
        var handler = new NativeCompletionHandler(s.driver(), new NativeCompletionParser(s.fields()), s.mapper(),
                errors);
        routes = List.of(Route.post("/completion", handler::completion), Route.post("/infill", handler::infill));
    }

    @Override
    public List<Route> routes() {
        return routes;
    }

    @Override
    public boolean owns(String path) {
        return path.equals("/completion") || path.equals("/infill");
    }

    @Override
    public ErrorShape errors() {
        return errors;
    }
}
