package io.rkllm.server.http.ollama;

import io.rkllm.server.api.EmbeddingRequestParser;
import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.ErrorShape;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.Route;
import java.util.List;

/**
 * Ollama's API under {@code /api/}: chat, generate, embeddings, the model list and details, pulling and deleting
 * models, in its error shape.
 */
public final class OllamaFamily implements ApiFamily {
    private final List<Route> routes;
    private final ErrorShape errors;

    public OllamaFamily(HttpServices s) {
        errors = new OllamaErrorShape(s.mapper());
        var ollama = new OllamaHandler(s.driver(), s.models(), new OllamaRequestParser(s.fields(), s.limits()),
                s.mapper(), s.config().models().idleUnload());
        var embeddings = new OllamaEmbeddings(s.embeddings(), new EmbeddingRequestParser(s.fields()));
        var pulls = new OllamaPulls(s.models(), s.downloads(), s.pulls(), s.fields(), s.mapper());
        var uploads = new OllamaUploads(s.models(), s.downloads(), s.pulls(), s.fields(), s.mapper());
        routes = List.of(
                Route.get("/api/version", ollama::version),
                Route.get("/api/tags", ollama::tags),
                Route.get("/api/ps", ollama::ps),
                Route.post("/api/show", ollama::show),
                Route.post("/api/chat", ollama::chat),
                Route.post("/api/generate", ollama::generate),
                Route.post("/api/embed", embeddings::embed),
                Route.post("/api/embeddings", embeddings::embeddings),
                Route.post("/api/pull", pulls::pull),
                Route.delete("/api/delete", pulls::delete),
                Route.head("/api/blobs/{digest}", uploads::hasBlob),
                Route.post("/api/blobs/{digest}", uploads::putBlob),
                Route.post("/api/create", uploads::create));
    }

    @Override
    public List<Route> routes() {
        return routes;
    }

    @Override
    public boolean owns(String path) {
        return path.startsWith("/api/");
    }

    @Override
    public ErrorShape errors() {
        return errors;
    }
}
