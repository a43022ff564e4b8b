package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.engine.LoadedModel;
import io.rkllm.server.pipeline.ChatPipeline;
import java.util.function.Supplier;

/** GET /health: 200 {"status":"ok"} while serving; 503 with the reason otherwise. */
final class HealthHandler {
    private final ChatPipeline pipeline;
    private final ObjectMapper mapper;
    private final Supplier<String> notReadyReason;

    HealthHandler(ChatPipeline pipeline, ObjectMapper mapper, Supplier<String> notReadyReason) {
        this.pipeline = pipeline;
        this.mapper = mapper;
        this.notReadyReason = notReadyReason;
    }

    void handle(Context ctx) throws Exception {
        String reason = notReadyReason.get();
        if (reason == null && pipeline.catalog().all().isEmpty()) {
            reason = "no models found: put .rkllm files in the models directory";
        }
        if (reason != null) {
            throw ApiException.unavailable("not_ready", reason, 5);
        }
        ObjectNode body = mapper.createObjectNode();
        body.put("status", "ok");
        body.put("runtime_abi", pipeline.registry().runtime().abi().label());
        ArrayNode models = body.putArray("loaded_models");
        for (LoadedModel model : pipeline.registry().loadedModels()) {
            ObjectNode m = models.addObject();
            m.put("id", model.spec().id());
            m.put("ready", model.isReady());
            m.put("busy", !model.isIdle());
            m.put("queued", model.worker().queued());
        }
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }
}
