package io.rkllm.server.app;

import io.rkllm.server.http.ApiFamily;
import io.rkllm.server.http.HttpServices;
import io.rkllm.server.http.anthropic.AnthropicFamily;
import io.rkllm.server.http.llamacpp.LlamaCppFamily;
import io.rkllm.server.http.ollama.OllamaFamily;
import io.rkllm.server.http.openai.OpenAiFamily;
import io.rkllm.server.http.responses.ResponsesFamily;
import java.util.List;

/** The wire APIs served on the port, each from its own folder under {@code http}. */
final class ApiFamilies {
    private ApiFamilies() {
    }

    static List<ApiFamily> all(HttpServices services) {
        return List.of(new OpenAiFamily(services), new ResponsesFamily(services), new AnthropicFamily(services),
                new OllamaFamily(services), new LlamaCppFamily(services));
    }
}
