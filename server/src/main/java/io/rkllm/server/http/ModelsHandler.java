package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.engine.ModelLoadException;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ChatPipeline;
import java.util.Optional;

/** GET /v1/models, GET /v1/models/{id}, POST /v1/models/{id}/load and /unload. */
final class ModelsHandler {
    private final ChatPipeline pipeline;
    private final ObjectMapper mapper;

    ModelsHandler(ChatPipeline pipeline, ObjectMapper mapper) {
        this.pipeline = pipeline;
        this.mapper = mapper;
    }

    void list(Context ctx) throws Exception {
        ObjectNode root = mapper.createObjectNode();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        for (ModelDescriptor model : pipeline.catalog().all()) {
            data.add(describe(model));
        }
        json(ctx, root);
    }

    void get(Context ctx) throws Exception {
        json(ctx, describe(find(ctx.pathParam("id"))));
    }

    void load(Context ctx) throws Exception {
        ModelDescriptor model = find(ctx.pathParam("id"));
        try {
            pipeline.registry().acquire(pipeline.spec(model));
        } catch (ModelLoadException e) {
            throw ApiException.unavailable("model_load_failed", e.getMessage(), 30);
        }
        json(ctx, describe(model));
    }

    void unload(Context ctx) throws Exception {
        ModelDescriptor model = find(ctx.pathParam("id"));
        pipeline.registry().unload(model.id(), "requested");
        json(ctx, describe(model));
    }

    private ModelDescriptor find(String id) {
        return pipeline.catalog().resolve(id).orElseThrow(() -> ApiException.modelNotFound(id, ""));
    }

    private ObjectNode describe(ModelDescriptor model) {
        ObjectNode node = mapper.createObjectNode();
        node.put("id", model.id());
        node.put("object", "model");
        node.put("created", model.modified().getEpochSecond());
        node.put("owned_by", "rkllm-server");
        node.put("name", model.displayName());
        Optional<LoadedModel> loaded = pipeline.registry().find(model.id());
        node.put("loaded", loaded.map(LoadedModel::isReady).orElse(false));
        node.put("context_length", model.contextLength());
        ObjectNode caps = node.putObject("capabilities");
        caps.put("thinking", model.capabilities().thinking());
        caps.put("tools", model.capabilities().tools());
        ArrayNode aliases = node.putArray("aliases");
        model.aliases().forEach(aliases::add);
        return node;
    }

    private void json(Context ctx, ObjectNode body) throws Exception {
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }
}
