package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.ModelStatus;
import java.util.function.Supplier;

/** GET /health: 200 {"status":"ok"} while serving; 503 with the reason otherwise. */
final class HealthHandler {
    private final ModelService models;
    private final ObjectMapper mapper;
    private final Supplier<String> notReadyReason;

    HealthHandler(ModelService models, ObjectMapper mapper, Supplier<String> notReadyReason) {
        this.models = models;
        this.mapper = mapper;
        this.notReadyReason = notReadyReason;
    }

    void handle(Context ctx) throws Exception {
        String reason = notReadyReason.get();
        if (reason == null && models.all().isEmpty()) {
            reason = "no model yet: download one with `rkllm-server pull OWNER/REPO[:QUANT]`, POST /api/pull or the chat"
                    + " page's download (or put a model file in a folder of its own in the models directory)";
        }
        if (reason != null) {
            throw ApiException.unavailable("not_ready", reason, 5);
        }
        ObjectNode body = mapper.createObjectNode();
        body.put("status", "ok");
        body.put("runtime_abi", models.runtimeAbi());
        ArrayNode loaded = body.putArray("loaded_models");
        for (ModelStatus model : models.loaded()) {
            ObjectNode m = loaded.addObject();
            m.put("id", model.id());
            m.put("ready", model.ready());
            m.put("busy", model.busy());
            m.put("queued", model.queued());
            m.put("running", model.running());
            m.put("parallel", model.parallel());
        }
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(body));
    }
}
