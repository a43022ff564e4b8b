package io.rkllm.server.http.openai;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.ModelStatus;

/** GET /v1/models, GET /v1/models/{id}, POST /v1/models/{id}/load and /unload. */
final class ModelsHandler {
    private final ModelService models;
    private final ObjectMapper mapper;

    ModelsHandler(ModelService models, ObjectMapper mapper) {
        this.models = models;
        this.mapper = mapper;
    }

    void list(Context ctx) throws Exception {
        ObjectNode root = mapper.createObjectNode();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        for (ModelDescriptor model : models.all()) {
            data.add(describe(model));
        }
        json(ctx, root);
    }

    void get(Context ctx) throws Exception {
        json(ctx, describe(models.find(ctx.pathParam("id"))));
    }

    void load(Context ctx) throws Exception {
        ModelDescriptor model = models.find(ctx.pathParam("id"));
        models.load(model);
        json(ctx, describe(model));
    }

    void unload(Context ctx) throws Exception {
        ModelDescriptor model = models.find(ctx.pathParam("id"));
        models.unload(model);
        json(ctx, describe(model));
    }

    private ObjectNode describe(ModelDescriptor model) {
        ObjectNode node = mapper.createObjectNode();
        node.put("id", model.id());
        node.put("object", "model");
        node.put("created", model.modified().getEpochSecond());
        node.put("owned_by", "rkllm-server");
        node.put("name", model.displayName());
        node.put("loaded", models.status(model).map(ModelStatus::ready).orElse(false));
        node.put("context_length", model.contextLength());
        node.put("engine", model.facts().engine());
        // what the file's header says, under its format's name ("gguf")
        model.facts().header().ifPresent(h -> {
            ObjectNode header = node.putObject(model.facts().format());
            header.put("architecture", h.architecture());
            header.put("parameters", h.parameterCount());
            header.put("parameter_size", h.parameterSize());
            header.put("quantization", h.quantisation());
            header.put("training_context_length", h.trainingContext());
            header.put("parallel", model.facts().parallel());
            model.facts().kvCache(model.sizeBytes(), model.contextLength()).ifPresent(k -> header.put("kv_cache", k));
        });
        ObjectNode caps = node.putObject("capabilities");
        caps.put("thinking", model.capabilities().thinking());
        caps.put("tools", model.capabilities().tools());
        caps.put("chat", !model.isEmbedding());
        caps.put("vision", model.seesImages());
        caps.put("embedding", model.isEmbedding() && !model.ranks());
        caps.put("rerank", model.ranks());
        if (!model.isEmbedding()) {
            // how its answers are read (docs/dialects.md), and where its own chat template came from
            node.put("dialect", models.dialect(model));
            node.put("chat_template", model.template().origin());
        }
        model.embedding().filter(e -> e.dimensions() > 0).ifPresent(e -> node.put("dimensions", e.dimensions()));
        ArrayNode aliases = node.putArray("aliases");
        model.aliases().forEach(aliases::add);
        return node;
    }

    private void json(Context ctx, ObjectNode body) throws Exception {
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }
}
