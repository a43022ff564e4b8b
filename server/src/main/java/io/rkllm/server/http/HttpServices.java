package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.download.Puller;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.ModelService;
import io.rkllm.server.security.PullPolicy;
import java.util.Optional;

/**
 * What every API family is built from: the configuration, the pipeline's entry points, the run and embedding
 * drivers every chat and embedding route shares, the fields all request parsers read the same way, and the puller
 * that writes models into the models directory with who may use it.
 */
public record HttpServices(ServerConfig config, ChatPipeline pipeline, ModelService models, RunDriver driver,
                           EmbeddingDriver embeddings, CommonFields fields, RequestLimits limits,
                           ObjectMapper mapper, Optional<Puller> downloads, PullPolicy pulls) {
}
