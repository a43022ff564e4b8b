package io.rkllm.server.http.llamacpp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.models.ModelDescriptor;
import io.rkllm.server.models.SamplingDefaults;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.pipeline.ModelStatus;
import java.util.Optional;

/**
 * GET /props (and /v1/props): llama-server's properties of the model it serves, which its clients read for the
 * context (llama.vscode's token limits, SillyTavern's context size): the model named by {@code ?model=}, else the
 * only one, as the completion routes pick it.
 */
final class PropsHandler {
    private final ModelService models;
    private final ObjectMapper mapper;

    PropsHandler(ModelService models, ObjectMapper mapper) {
        this.models = models;
        this.mapper = mapper;
    }

    void get(Context ctx) throws Exception {
        ModelDescriptor model = models.forRequest(Optional.ofNullable(ctx.queryParam("model")).orElse(""));
        ObjectNode root = mapper.createObjectNode();
        ObjectNode settings = root.putObject("default_generation_settings");
        settings.put("n_ctx", model.contextLength());
        ObjectNode params = settings.putObject("params");
        SamplingDefaults sampling = model.sampling();
        params.put("n_predict", sampling.maxTokens().orElse(-1));
        sampling.temperature().ifPresent(t -> params.put("temperature", t));
        sampling.topK().ifPresent(k -> params.put("top_k", k));
        sampling.topP().ifPresent(p -> params.put("top_p", p));
        sampling.repeatPenalty().ifPresent(p -> params.put("repeat_penalty", p));
        sampling.stop().forEach(params.putArray("stop")::add);
        root.put("total_slots", Math.max(1, model.facts().parallel()));
        root.put("model_alias", model.id());
        root.put("model_path", model.file().getFileName().toString());
        root.put("chat_template", model.template().jinja().orElse(""));
        root.putObject("modalities").put("vision", model.seesImages()).put("audio", false);
        root.put("build_info", "rkllm-server");
        root.put("is_sleeping", !models.status(model).map(ModelStatus::ready).orElse(false));
        ctx.contentType("application/json").result(mapper.writeValueAsBytes(root));
    }
}
