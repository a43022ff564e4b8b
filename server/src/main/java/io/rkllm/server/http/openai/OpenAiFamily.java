package io.rkllm.server.http.openai;

import io.rkllm.server.api.EmbeddingRequestParser;
import io.rkllm.server.api.RerankRequestParser;
import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.OpenAiErrorShape;
import io.rkllm.server.http.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * OpenAI's chat completions, legacy completions, embeddings and models (with and without the /v1 prefix, as
 * llama-server), llama-server's rerank and apply-template, and the server's model load and unload extensions. Its error shape is the server's default.
 */
public final class OpenAiFamily implements ApiFamily {
    private final List<Route> routes = new ArrayList<>();
    private final ErrorShape errors;

    public OpenAiFamily(HttpServices s) {
        errors = new OpenAiErrorShape(s.mapper());
        var chat = new OpenAiHandler(s.driver(), new ChatRequestParser(s.fields()), s.mapper(), errors);
        var embeddings = new OpenAiEmbeddings(s.embeddings(), new EmbeddingRequestParser(s.fields()));
        var models = new ModelsHandler(s.models(), s.mapper());
        var rerank = new OpenAiRerank(s.embeddings(), new RerankRequestParser(s.fields()));
        var template = new ApplyTemplate(s.pipeline(), new ChatRequestParser(s.fields()), s.mapper());
        routes.add(Route.post("/apply-template", template::handle));
        for (String prefix : new String[] {"/v1", ""}) {
            routes.add(Route.post(prefix + "/chat/completions", chat::chat));
            routes.add(Route.post(prefix + "/completions", chat::completions));
            routes.add(Route.post(prefix + "/embeddings", embeddings::handle));
            routes.add(Route.post(prefix + "/rerank", rerank::handle));
            routes.add(Route.get(prefix + "/models", models::list));
            routes.add(Route.get(prefix + "/models/{id}", models::get));
            routes.add(Route.post(prefix + "/models/{id}/load", models::load));
            routes.add(Route.post(prefix + "/models/{id}/unload", models::unload));
        }
    }

    @Override
    public List<Route> routes() {
        return List.copyOf(routes);
    }

    /** Owns no path by itself: its shape is every unowned path's anyway. */
    @Override
    public boolean owns(String path) {
        return false;
    }

    @Override
    public ErrorShape errors() {
        return errors;
    }

    /** What OpenAI's SDKs (Stainless-generated: x-stainless-*, allowed by prefix) and Open WebUI send. */
    @Override
    public Set<String> requestHeaders() {
        return Set.of("openai-organization", "openai-project", "openai-beta", "x-openwebui-chat-id");
    }
}
