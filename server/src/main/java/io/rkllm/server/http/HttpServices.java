package io.rkllm.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rkllm.server.api.CommonFields;
import io.rkllm.server.api.RequestLimits;
import io.rkllm.server.config.ServerConfig;
import io.rkllm.server.pipeline.ChatPipeline;
import io.rkllm.server.pipeline.ModelService;

/**
 * What every API family is built from: the configuration, the pipeline's entry points, the run and embedding
 * drivers every chat and embedding route shares, and the fields all request parsers read the same way.
 */
public record HttpServices(ServerConfig config, ChatPipeline pipeline, ModelService models, RunDriver driver,
                           EmbeddingDriver embeddings, CommonFields fields, RequestLimits limits,
                           ObjectMapper mapper) {
}
